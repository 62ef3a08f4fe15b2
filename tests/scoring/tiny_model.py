"""A tiny randomly initialised Llama-like causal LM with a tokenizer trained on the spot.

Nothing is downloaded: the tokenizer is a byte-level BPE trained in a second with `tokenizers` on
text shaped like the DHP prompts (so the digits 1-5 are tokens), wrapped as a transformers fast
tokenizer with a chat template; the model is a 2-layer Llama with random weights. Its outputs are
garbage, which is what the parsers and coverage accounting must survive.
"""

from __future__ import annotations

from pathlib import Path

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)

_CORPUS = [
    "You will be given a summary written for an article. Your task is to rate the summary on one metric.",
    "Evaluation Criterion: Coherence (1-5) - the collective quality of all sentences.",
    "Evaluation Steps: 1. Read the summary. 2. Identify the topic. 3. Check the flow. 4. Rate it. 5. Done.",
    "Evaluation Score (please don't give any feedback, just give a score ONLY) - Coherence: 4",
    "Score: 1 2 3 4 5. Rating: 3/5. I would rate it 4 out of 5.",
    "the council approved a new budget for schools and roads after a long debate on taxes while "
    "residents asked for better parks and cleaner rivers in the northern district",
    "Question: What is the answer? Paragraph: Answer: Source Text (German): Translation: Story Ending:",
]


def build_tiny_model(folder: Path, seed: int = 0) -> Path:
    """Write tokenizer + model to ``folder`` (a path without '@': serve splits model ids on it)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    specials = ["<|pad|>", "<|bos|>", "<|end|>", "<|user|>", "<|assistant|>", "<|system|>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=512,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_CORPUS * 20, trainer)
    fast = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]  # transformers' __init__ is unannotated
        tokenizer_object=tok, bos_token="<|bos|>", eos_token="<|end|>", pad_token="<|pad|>"
    )
    fast.chat_template = CHAT_TEMPLATE
    folder.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(folder)
    config = LlamaConfig(
        vocab_size=len(fast),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
        tie_word_embeddings=True,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.generation_config = GenerationConfig(  # type: ignore[no-untyped-call]  # unannotated __init__
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
        do_sample=False,
    )
    model.save_pretrained(folder)
    return folder
