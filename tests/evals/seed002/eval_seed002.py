"""Every runnable example of seed 002 (Python evals, documented for ezvals), verbatim, with
only the import line changed to goldgate's. The helpers the examples call without defining
them (``my_agent``, ``support_agent``, ...) are small stubs at the top: with
``SEED_AGENTS=bad`` in the environment they answer badly, so the failures the seed describes
can be seen too. ``tests/evals/test_seed_examples.py`` runs this file.
"""
# ruff: noqa: E501, E722, I001
# (not `ruff format`ted: the examples stay as the seed writes them)

from goldgate.evals import eval, EvalContext

# --- stubs for what the examples call --------------------------------------------------------

import json
import os


def _good() -> bool:
    return os.environ.get("SEED_AGENTS", "good") != "bad"


async def my_agent(question):
    if "quantum" in question.lower():
        if _good():
            return "Quantum computing uses qubits, which can hold superpositions of 0 and 1."
        return "It is a kind of computer. " * 30
    return "The capital of France is Paris." if _good() else "I am not sure."


async def support_agent(message):
    if _good():
        return "I'm sorry about the trouble: your refund is on its way within five days."
    return "No."


async def calculator(expression):
    return "4" if _good() else "5"


async def classify_sentiment(text):
    labels = {"I love this!": "positive", "This is terrible": "negative", "It's okay": "neutral"}
    return labels[text] if _good() else "positive"


async def classifier(text):
    return {"label": "news", "confidence": 0.92 if _good() else 0.41}


def calculate_similarity(output, expected):
    return 0.8 if _good() else 0.3


reference = "Quantum computers use qubits."


async def summarizer(text):
    return "A short summary of the document." if _good() else None


def quality_score(output):
    return 0.75


async def api_call(request):
    return '{"user": {"id": 7, "name": "Ada"}}' if _good() else "<html>server error</html>"


# --- the seed's examples, verbatim ------------------------------------------------------------

@eval(input="What is the capital of France?", dataset="qa")
async def test_answer_quality(ctx: EvalContext):
    ctx.output = await my_agent(ctx.input)
    assert "paris" in ctx.output.lower(), "Should mention Paris"

@eval(input="I want a refund", dataset="customer_service")
async def test_refund_response(ctx: EvalContext):
    ctx.output = await support_agent(ctx.input)

    assert len(ctx.output) > 20, "Response too short"
    assert "refund" in ctx.output.lower(), "Should acknowledge refund request"
    assert "sorry" in ctx.output.lower() or "apologize" in ctx.output.lower(), \
        "Should express empathy"

@eval(input="2 + 2", reference="4", dataset="math")
async def test_arithmetic(ctx: EvalContext):
    ctx.output = await calculator(ctx.input)
    assert ctx.output == ctx.reference

@eval(
    dataset="sentiment",
    cases=[
        {"input": "I love this!", "reference": "positive"},
        {"input": "This is terrible", "reference": "negative"},
        {"input": "It's okay", "reference": "neutral"},
    ],
)
async def test_sentiment(ctx: EvalContext):
    ctx.output = await classify_sentiment(ctx.input)
    assert ctx.output == ctx.reference

@eval(input="Classify this text", dataset="classification")
async def test_with_confidence(ctx: EvalContext):
    result = await classifier(ctx.input)
    ctx.store(output=result["label"], scores={"value": result["confidence"], "notes": "Model confidence"})

@eval(input="Explain quantum computing", dataset="qa")
async def test_comprehensive(ctx: EvalContext):
    ctx.output = await my_agent(ctx.input)

    ctx.store(scores=[
        {"passed": "quantum" in ctx.output.lower(), "key": "relevance", "notes": "Mentions quantum"},
        {"passed": len(ctx.output) < 500, "key": "brevity", "notes": f"Length: {len(ctx.output)}"},
        {"value": calculate_similarity(ctx.output, reference), "key": "similarity", "notes": "Semantic similarity"}
    ])

@eval(input="Generate a summary", dataset="demo")
async def test_mixed(ctx: EvalContext):
    ctx.output = await summarizer(ctx.input)

    # Must-pass requirements as assertions
    assert ctx.output is not None, "Got no output"
    assert len(ctx.output) > 10, "Output too short"

    # Numeric quality metric
    ctx.store(scores={"value": quality_score(ctx.output), "key": "quality", "notes": "Quality score"})

def check_format(result):
    """Check if output is valid JSON."""
    try:
        json.loads(result.output)
        return {"key": "format", "passed": True}
    except:
        return {"key": "format", "passed": False, "notes": "Invalid JSON"}

@eval(input="Get user data", dataset="api", evaluators=[check_format])
async def test_json_response(ctx: EvalContext):
    ctx.output = await api_call(ctx.input)
    assert "user" in ctx.output, "Should contain user data"
