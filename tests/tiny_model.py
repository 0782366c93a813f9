"""A tiny random LLaMA with a locally built tokenizer and a chat template: no download.

Model and training tests load it exactly like the real base model (``from_pretrained`` on a
directory), in well under a second. The tokenizer knows whole words from a few sentences plus
every printable ASCII character, so any JSON tool call can be encoded (and so constrained
decoding over JSON always has legal tokens).
"""

from __future__ import annotations

import string
from pathlib import Path

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
"""SmolLM2's ChatML layout, so prompts look like the real model's."""

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<pad>"]

_SENTENCES = [
    "Your task is to use a tool that meets real-time user instructions.",
    'Interaction history is: {"instruction": "Get the weather", "tool_call": {"tool_name": "<Weather>.<Open Meteo>.<forecast>", "parameters": {"city": "Paris"}}, "rating": 1}',
    "Available tools you can call with input parameters are listed here:",
    "Generate only the tool call in JSON format without any additional outputs.",
    '{"tool_name": "<Travel>.<flight | flight aggregator>.<flight>", "parameters": {}}',
]


def build_tokenizer():
    """A byte-level BPE tokenizer trained on a few sentences, with ChatML special tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=None))
    # Byte-level: every string is encodable, so no "unknown character" surprises in tests.
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_SENTENCES + [string.printable], trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<|im_start|>",
        eos_token="<|im_end|>",
        unk_token="<|endoftext|>",
        pad_token="<pad>",
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build_tiny_llama(path: str | Path, seed: int = 0, hidden_size: int = 32) -> str:
    """Save a tiny random LlamaForCausalLM and its tokenizer to ``path``; return the path.

    Args:
        path: directory to create (parents too).
        seed: torch seed, so the random weights are the same on every run.
        hidden_size: 64 or more for bitsandbytes 4-bit on CPUs with AVX-512 BF16, whose packed
            layout needs each weight's input size to hold a 64-value quantization block.
    """
    import torch
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer()
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.generation_config = GenerationConfig(
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return str(path)


def chat_prompt_ids(tokenizer, text: str = "hello") -> list[int]:
    """Token ids of a one-message user chat with the generation prompt, as a model call starts."""
    return tokenizer(
        tokenizer.apply_chat_template([{"role": "user", "content": text}], tokenize=False, add_generation_prompt=True),
        add_special_tokens=False,
    )["input_ids"]
