"""How much more memory this process may take: a large input is refused before it is read,
rather than met half way by a failed allocation (which a C extension may not survive).

Three things can limit it, and the least of them counts:

- the address-space limit (``RLIMIT_AS``, ``ulimit -v``, ``prlimit --as``): less the
  address space the process already holds (``VmSize``);
- the cgroup's ``memory.max`` (a container's memory limit; v1's ``memory.limit_in_bytes``)
  less what it uses (``memory.current``, page cache left out);
- ``GOLDGATE_MEMORY_LIMIT``, in megabytes: the address space goldgate may hold, counted as
  ``RLIMIT_AS`` counts it (a bound to keep under a limit that cannot be seen from inside).
"""

from __future__ import annotations

import contextlib
import os
import resource
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from goldgate.base.errors import InvalidInputError
from goldgate.base.textsafe import quote

__all__ = ["MEGABYTE", "MEMORY_LIMIT_VARIABLE", "memory_left"]

MEMORY_LIMIT_VARIABLE: Final = "GOLDGATE_MEMORY_LIMIT"
MEGABYTE: Final = 1 << 20
_CGROUPS: Final = Path("/sys/fs/cgroup")


def memory_left(environ: Mapping[str, str] = os.environ) -> int | None:
    """Bytes this process may still take (see the module's description); None when nothing
    limits it. ``InvalidInputError`` for a ``GOLDGATE_MEMORY_LIMIT`` that is not a positive
    whole number."""
    held = _held()
    limits = [_variable_limit(environ), _address_space_limit()]
    left = [limit - held for limit in limits if limit is not None]
    cgroup = _cgroup_left()
    if cgroup is not None:
        left.append(cgroup)
    return max(0, min(left)) if left else None


def _variable_limit(environ: Mapping[str, str]) -> int | None:
    text = environ.get(MEMORY_LIMIT_VARIABLE, "").strip()
    if not text:
        return None
    if not text.isdecimal() or int(text) <= 0:
        raise InvalidInputError(
            f"{MEMORY_LIMIT_VARIABLE} must be a positive whole number of megabytes, "
            f"found {quote(text)}."
        )
    return int(text) * MEGABYTE


def _address_space_limit() -> int | None:
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else soft


def _held() -> int:
    """The address space this process holds now (``VmSize``), 0 where it cannot be read."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _cgroup_left() -> int | None:
    """What this process's cgroup may still take: its limit less what it uses, page cache
    left out (the kernel reclaims it before it refuses memory). cgroup v2's ``memory.max``
    and ``memory.current``; v1's ``memory.limit_in_bytes`` and ``memory.usage_in_bytes``.
    None when it has no limit or none can be read."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            number, controllers, place = line.split(":", 2)
            relative = place.strip().lstrip("/")
            if number == "0" and not controllers:
                found = _left(_CGROUPS / relative, "memory.max", "memory.current", "file")
            elif "memory" in controllers.split(","):
                folder = _CGROUPS / "memory" / relative
                found = _left(
                    folder, "memory.limit_in_bytes", "memory.usage_in_bytes", "total_cache"
                )
            else:
                continue
            if found is not None:
                return found
    return None


_NO_LIMIT: Final = 1 << 62
"""cgroup v1 writes 'no limit' as a number near 2**63."""


def _left(folder: Path, limit_name: str, usage_name: str, cache_key: str) -> int | None:
    try:
        limit = (folder / limit_name).read_text().strip()
        if limit == "max" or int(limit) >= _NO_LIMIT:
            return None
        used = int((folder / usage_name).read_text().strip())
    except (OSError, ValueError):
        return None
    cache = 0
    with contextlib.suppress(OSError, ValueError):
        for line in (folder / "memory.stat").read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == cache_key:
                cache = int(value)
    return int(limit) - max(0, used - cache)
