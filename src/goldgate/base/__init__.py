"""What every stage stands on: the one exception hierarchy and its exit codes (``errors``),
strict JSON with positions (``strictjson``), JSON values and RFC 6901 pointers, reading
files safely (``files``), text made safe to print (``textsafe``), counts in English
(``english``: the one pluralisation), the standard streams
(``stdio``), the supervised child's side of its pipe (``channel``), importing user code,
what a report cannot hold of what user code gives (``holdable``), ending what user code
left running (``reaping``), and memory management. Imports nothing from any other stage.
"""

__all__ = [
    "accelerators",
    "channel",
    "english",
    "errors",
    "files",
    "frozen",
    "holdable",
    "imports",
    "jsonvalue",
    "lazy",
    "memory",
    "memorylimit",
    "outputs",
    "pointers",
    "problems",
    "provided",
    "reaping",
    "stdio",
    "strictjson",
    "template",
    "textsafe",
]
