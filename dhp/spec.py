"""The DHP benchmark as data: the six datasets, their metrics, perturbations and expert weights.

This is the one source of truth used by the builder, the scorer and the leaderboard. It follows
``SPEC.md`` §2-§3 and the DHP paper (Wang et al. 2024, Tables 1-2). The paper's expert-survey vote
counts are only published as a figure, so the default weights below are ours, each with its reason;
pass a weights file (:func:`dhp.weights.load_weights`) or use the leaderboard's survey to replace them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from dhp.errors import SpecError
from dhp.types import (
    ContextField,
    DatasetSpec,
    ExpertWeights,
    Level,
    Method,
    Metric,
    Operation,
    PaperStats,
    Perturbation,
    Redistribution,
    Selection,
    Severity,
    SourceSpec,
    TaskKind,
    WeightEntry,
)

__all__ = [
    "BENCHMARK",
    "DATASET_NAMES",
    "DHP_CITATION",
    "MIN_PAIRS",
    "enough_pairs",
    "get_dataset",
    "resolve_datasets",
]

SEED = 2024

#: The few-pairs rule: a perturbation with fewer scored pairs than this carries no verdict. It is left
#: out of D_avg, D_min and "qualified", and shown apart with its n (results, ``dhp score``, cards,
#: the board, ``dhp compare``). Derived, not guessed: the fewest pairs at which a judge with a clear
#: effect (85% of pairs scored lower, ties counted half) reaches D > 1 in at least 80% of draws, and
#: stays there for every larger n (:func:`dhp.scoring.power.min_pairs`, which a test holds equal to
#: this number; ``python benchmarks/bench_few_pairs.py`` prints the power curve). Below 5 pairs no
#: judge can reach D > 1 at all: the exact test's smallest p is 2^-n (D <= 0.2314 n).
MIN_PAIRS = 12


def enough_pairs(n_pairs: int) -> bool:
    """Whether a perturbation with ``n_pairs`` scored pairs counts toward D_avg, D_min and qualified."""
    return n_pairs >= MIN_PAIRS


DHP_CITATION = """@article{wang2024dhp,
  title   = {DHP Benchmark: Are LLMs Good NLG Evaluators?},
  author  = {Wang, Yicheng and Yuan, Jiayi and Chuang, Yu-Neng and Wang, Zhuoer and Liu, Yingchi and
             Cusick, Mark and Kulkarni, Param and Ji, Zhengping and Ibrahim, Yasser and Hu, Xia},
  journal = {arXiv preprint arXiv:2408.13704},
  year    = {2024}
}"""

# --------------------------------------------------------------------------------------------
# Metrics (SPEC §2, "Metric definitions")
# --------------------------------------------------------------------------------------------
_SUM_COHERENCE = Metric(
    "coherence",
    "Coherence",
    "the collective quality of all sentences. The text should be well-structured and well-organized: "
    "not just a heap of related information, but building from sentence to sentence to a coherent "
    "body of information about a topic.",
)
_SUM_CONSISTENCY = Metric(
    "consistency",
    "Consistency",
    "the factual alignment between the summary and the source. A factually consistent summary contains "
    "only statements that are entailed by the source; penalize summaries that contain hallucinated facts.",
)
_SUM_FLUENCY = Metric(
    "fluency",
    "Fluency",
    "the quality of individual sentences. Sentences should have no formatting problems, capitalization "
    "errors or obviously ungrammatical sentences (e.g., fragments, missing components) that make the "
    "text difficult to read.",
)
_SUM_RELEVANCE = Metric(
    "relevance",
    "Relevance",
    "selection of important content from the source. The summary should include only important "
    "information from the source; penalize summaries that contain redundancies and excess information.",
)
_STORY_COHERENCE = Metric(
    "coherence",
    "Coherence",
    "the collective quality of the story with its ending: the overall structure and narrative flow. "
    "The ending should follow from the story so that the whole builds a coherent narrative.",
)
_STORY_CONSISTENCY = Metric(
    "consistency",
    "Consistency",
    "the ending keeps what the story established: its tone, setting, characters and style, and "
    "contradicts none of the facts given in the first four sentences.",
)
_STORY_FLUENCY = Metric(
    "fluency",
    "Fluency",
    "the quality of the ending sentence itself: no formatting problems, capitalization errors or "
    "ungrammatical constructions that make it difficult to read.",
)
# The paper ends "... capturing the essence of the content discussed in the paragraph"; many items
# have no paragraph (AE's train split has none) and the judge is not shown one then, so the
# definition is phrased without it (issue 9, part 6).
_ANSWER_QUALITY = Metric(
    "answer_quality",
    "Answer Quality",
    "a comprehensive and accurate response to the question, capturing the essence of the content "
    "the question asks about.",
)
_MT_ACCURACY = Metric(
    "accuracy",
    "Accuracy",
    "(MQM) how closely the translation mirrors the source text: no additions, omissions or mistranslations.",
)
_MT_FLUENCY = Metric(
    "fluency",
    "Fluency",
    "(MQM) the translation's compliance with the linguistic norms of the target language: "
    "spelling, grammar and consistency.",
)

# --------------------------------------------------------------------------------------------
# Perturbations (SPEC §3; paper Table 2)
# --------------------------------------------------------------------------------------------
C, W, S = Level.CHARACTER, Level.WORD, Level.SENTENCE
R, L = Method.RULE, Method.LLM
MINOR, MAJOR, SINGLE = Severity.MINOR, Severity.MAJOR, Severity.SINGLE


def _sev_id(base: str, sev: Severity) -> str:
    return base if sev is SINGLE else f"{base}_{sev.value}"


def _char(minor_k: int, major_k: int | None) -> tuple[Perturbation, ...]:
    """Character-level rows: random alphanumeric deletions and `typo` typos."""
    sevs: list[tuple[Severity, int]] = (
        [(SINGLE, minor_k)] if major_k is None else [(MINOR, minor_k), (MAJOR, major_k)]
    )
    out = [
        Perturbation(
            _sev_id("char_deletion", s),
            C,
            R,
            Operation.CHAR_DELETION,
            s,
            f"Delete {k} random alphanumeric characters.",
            k,
        )
        for s, k in sevs
    ]
    out += [
        Perturbation(
            _sev_id("char_typo", s),
            C,
            R,
            Operation.CHAR_TYPO,
            s,
            f"Add {k} random typographical errors with the `typo` package.",
            k,
        )
        for s, k in sevs
    ]
    return tuple(out)


def _llm_word(what: str, severities: Iterable[Severity], grammar_minor: str) -> tuple[Perturbation, ...]:
    out: list[Perturbation] = []
    for s in severities:
        ne = {
            MINOR: f"Replace one critical named entity in the {what} with a fictional counterpart.",
            MAJOR: f"Replace several named entities in the {what} with fictional counterparts.",
            SINGLE: f"Replace one critical named entity in the {what} with a fictional counterpart.",
        }[s]
        out.append(Perturbation(_sev_id("word_fictional_ne", s), W, L, Operation.FICTIONAL_ENTITIES, s, ne))
    for s in severities:
        ge = {
            MINOR: f"Introduce {grammar_minor} into the {what}.",
            MAJOR: f"Introduce two or more grammatical errors into the {what}.",
            SINGLE: f"Introduce one grammatical error into the {what}.",
        }[s]
        out.append(Perturbation(_sev_id("word_grammar", s), W, L, Operation.GRAMMATICAL_ERRORS, s, ge))
    return tuple(out)


_SUMMARY_SENTENCE = (
    Perturbation(
        "sent_reorder_minor", S, R, Operation.SENTENCE_REORDER, MINOR, "Swap two random sentences.", 2
    ),
    Perturbation(
        "sent_reorder_major", S, R, Operation.SENTENCE_REORDER, MAJOR, "Shuffle all sentences.", None
    ),
    Perturbation(
        "sent_rewrite_insert_minor",
        S,
        L,
        Operation.REWRITE_INSERT,
        MINOR,
        "Rephrase one sentence and insert the rewrite right after it.",
    ),
    Perturbation(
        "sent_rewrite_insert_major",
        S,
        L,
        Operation.REWRITE_INSERT,
        MAJOR,
        "Rephrase several sentences and insert each rewrite right after its original.",
    ),
)

# --------------------------------------------------------------------------------------------
# The kinds of dataset (DatasetSpec.task): what each part of the package says of one
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskKindFacts:
    """How the builder, the cards, the survey and a starter task file speak of a kind of dataset."""

    #: the judged text, as the survey names it ("story ending")
    noun: str
    #: a data file's column name that a starter task file takes for this kind's judged text
    column: str
    #: what one judged text is, in the perturber's prompt
    written_for: str
    #: the dataset card's task line
    card_text: str
    #: the card's Hub ``task_categories``
    hub_categories: tuple[str, ...]


#: TaskKind -> its facts, for the built-in kinds (CUSTOM, and a user's own kind, have none).
TASK_KINDS: Mapping[TaskKind, TaskKindFacts] = MappingProxyType(
    {
        TaskKind.SUMMARIZATION: TaskKindFacts(
            "summary",
            "summary",
            "one summary written for an article",
            "summarisation (reference summaries of source articles)",
            ("summarization",),
        ),
        TaskKind.STORY_COMPLETION: TaskKindFacts(
            "story ending",
            "ending",
            "one ending written for a short story",
            "story completion (the ending of a four-sentence story)",
            ("text-generation",),
        ),
        TaskKind.QUESTION_ANSWERING: TaskKindFacts(
            "answer",
            "answer",
            "one answer written for a question",
            "question answering (reference answers to questions)",
            ("question-answering",),
        ),
        TaskKind.TRANSLATION: TaskKindFacts(
            "translation",
            "translation",
            "one English translation written for a source text",
            "machine translation into English (reference translations)",
            ("translation",),
        ),
    }
)


def task_kind(task: str) -> TaskKindFacts | None:
    """The facts of a dataset's ``task`` (:attr:`DatasetSpec.task`); None for a kind without them."""
    try:
        return TASK_KINDS.get(TaskKind(task))
    except ValueError:  # a kind no table row describes (a user's task of another kind)
        return None


# --------------------------------------------------------------------------------------------
# The operations' facts
# --------------------------------------------------------------------------------------------

#: The item extra (:attr:`dhp.data.items.Item.extras` key) holding a Story Cloze item's wrong ending.
WRONG_ENDING = "wrong_ending"


@dataclass(frozen=True)
class OperationFacts:
    """What everyone but the builder's code needs to know of an operation (the builder's
    :mod:`~dhp.builder.perturb.registry` holds how it is done)."""

    method: Method
    #: what a reader sees in a text so perturbed ("{t}" names the text, e.g. summary): the survey's wording
    symptom: str
    #: the item extra the operation needs (a table source has none), if any
    item_extra: str | None = None


#: Operation -> its facts, for every :class:`~dhp.types.Operation` (checked below).
OPERATIONS: Mapping[Operation, OperationFacts] = MappingProxyType(
    {
        Operation.CHAR_DELETION: OperationFacts(
            Method.RULE,
            "In the {t}, there are some incomplete words with random missing letters.",
        ),
        Operation.CHAR_TYPO: OperationFacts(
            Method.RULE,
            "In the {t}, there are some typos (misspelled words).",
        ),
        Operation.WORD_DELETION: OperationFacts(
            Method.RULE,
            "In the {t}, some consecutive words are missing.",
        ),
        Operation.FICTIONAL_ENTITIES: OperationFacts(
            Method.LLM,
            "In the {t}, some named entities (names, places, numbers, terms) are replaced by fictional ones.",
        ),
        Operation.GRAMMATICAL_ERRORS: OperationFacts(
            Method.LLM,
            "The {t} contains grammatical errors (agreement, tense, prepositions, fragments).",
        ),
        Operation.SENTENCE_REORDER: OperationFacts(
            Method.RULE,
            "The sentences of the {t} are in a shuffled order.",
        ),
        Operation.REWRITE_INSERT: OperationFacts(
            Method.LLM,
            "The {t} repeats some of its sentences in other words, right after the original.",
        ),
        Operation.OTHER_ITEM: OperationFacts(
            Method.RULE,
            "The {t} was written for a different input (it is taken from another item).",
        ),
        Operation.WRONG_ENDING: OperationFacts(
            Method.RULE,
            "The {t} is a wrong ending: it contradicts or ignores the story.",
            item_extra=WRONG_ENDING,
        ),
    }
)
if set(OPERATIONS) != set(Operation):
    raise SpecError(f"dhp.spec.OPERATIONS: no facts for {sorted(set(Operation) - set(OPERATIONS))}")


# --------------------------------------------------------------------------------------------
# Default expert weights, with reasons (replace with survey votes when available)
# --------------------------------------------------------------------------------------------


def _w(reason: str, **weights: float) -> WeightEntry:
    return WeightEntry(weights=weights, reason=reason)


_CHAR_SUM = _w(
    "Broken words are formatting/spelling problems of individual sentences (fluency's definition); "
    "badly garbled text also hurts readability of the whole (coherence).",
    fluency=0.8,
    coherence=0.2,
)
_NE_SUM = _w(
    "A fictional entity is a statement not entailed by the source: a hallucinated fact (consistency); "
    "a wrong key entity also misstates the important content (relevance).",
    consistency=0.9,
    relevance=0.1,
)
_GRAMMAR_SUM = _w(
    "Agreement, tense and preposition errors are ungrammatical sentences (fluency); some break the "
    "link between sentences (coherence).",
    fluency=0.9,
    coherence=0.1,
)
_REORDER_SUM = _w(
    "Shuffled sentences keep every sentence intact but destroy the structure and flow from sentence to "
    "sentence, which is exactly coherence.",
    coherence=1.0,
)
_REWRITE_SUM = _w(
    "A rephrased duplicate adds redundancy, which relevance penalizes explicitly; G-Eval's coherence "
    "steps also flag redundancies.",
    relevance=0.6,
    coherence=0.4,
)


def _summary_weights() -> ExpertWeights:
    return ExpertWeights(
        {
            **{f"char_{op}_{s}": _CHAR_SUM for op in ("deletion", "typo") for s in ("minor", "major")},
            **{f"word_fictional_ne_{s}": _NE_SUM for s in ("minor", "major")},
            **{f"word_grammar_{s}": _GRAMMAR_SUM for s in ("minor", "major")},
            **{f"sent_reorder_{s}": _REORDER_SUM for s in ("minor", "major")},
            **{f"sent_rewrite_insert_{s}": _REWRITE_SUM for s in ("minor", "major")},
        }
    )


_STORY_WEIGHTS = ExpertWeights(
    {
        "char_deletion": _w(
            "Missing letters are a spelling/formatting problem of the sentence.", fluency=0.8, coherence=0.2
        ),
        "char_typo": _w(
            "Typos are a spelling/formatting problem of the sentence.", fluency=0.8, coherence=0.2
        ),
        "word_fictional_ne": _w(
            "A new, unknown name or place in the ending breaks the established characters and setting.",
            consistency=0.8,
            coherence=0.2,
        ),
        "word_grammar": _w(
            "A grammatical error is a fault of the sentence itself.", fluency=0.9, coherence=0.1
        ),
        "sent_random_ending": _w(
            "An ending from another story neither follows the narrative (coherence) nor keeps its "
            "characters and setting (consistency).",
            coherence=0.5,
            consistency=0.5,
        ),
        "sent_wrong_ending": _w(
            "The dataset's wrong ending contradicts what the story established (consistency) and "
            "breaks the narrative flow (coherence).",
            consistency=0.6,
            coherence=0.4,
        ),
    }
)

_ONE_METRIC = "Answer Equivalence has a single metric, so every issue is scored by answer quality."
_AE_WEIGHTS = ExpertWeights(
    {
        pid: _w(_ONE_METRIC, answer_quality=1.0)
        for pid in (
            "char_deletion_minor",
            "char_deletion_major",
            "char_typo_minor",
            "char_typo_major",
            "word_fictional_ne_minor",
            "word_fictional_ne_major",
            "word_grammar_minor",
            "word_grammar_major",
            "sent_random_answer",
        )
    }
)

_MT_CHAR = _w(
    "Misspelled and broken words violate the target language's spelling norms (MQM fluency); "
    "a garbled word can also obscure meaning (accuracy).",
    fluency=0.8,
    accuracy=0.2,
)
_MT_WORD_DEL = _w(
    "Deleting consecutive words omits source content, an MQM accuracy error; it often leaves a broken "
    "sentence too (fluency).",
    accuracy=0.7,
    fluency=0.3,
)
_MT_NE = _w(
    "A fictional entity is a mistranslation of the source (MQM accuracy); the sentence stays fluent.",
    accuracy=0.9,
    fluency=0.1,
)
_MT_GRAMMAR = _w(
    "Grammatical errors violate the target language's grammar (MQM fluency).",
    fluency=0.9,
    accuracy=0.1,
)


def _mt_weights() -> ExpertWeights:
    return ExpertWeights(
        {
            **{f"char_{op}_{s}": _MT_CHAR for op in ("deletion", "typo") for s in ("minor", "major")},
            **{f"word_deletion_{s}": _MT_WORD_DEL for s in ("minor", "major")},
            **{f"word_fictional_ne_{s}": _MT_NE for s in ("minor", "major")},
            **{f"word_grammar_{s}": _MT_GRAMMAR for s in ("minor", "major")},
        }
    )


# --------------------------------------------------------------------------------------------
# Sources (licences and redistribution terms; see docs/datasets.md#sources)
# --------------------------------------------------------------------------------------------
_SUMMEVAL_SRC = SourceSpec(
    name="SummEval",
    citation="""@article{fabbri2021summeval,
  title   = {SummEval: Re-evaluating Summarization Evaluation},
  author  = {Fabbri, Alexander R. and Kry{\\'s}ci{\\'n}ski, Wojciech and McCann, Bryan and Xiong, Caiming and
             Socher, Richard and Radev, Dragomir},
  journal = {Transactions of the Association for Computational Linguistics},
  volume  = {9}, pages = {391--409}, year = {2021}
}""",
    homepage="https://github.com/Yale-LILY/SummEval",
    licence="mit",
    redistribution=Redistribution.ALLOWED,
    terms="SummEval annotations and references: MIT (Fabbri et al. 2021). The articles are CNN/DailyMail "
    "news text, used under the usual research convention.",
    origin_urls={
        "data.pkl": "https://github.com/neulab/BARTScore/raw/248f511cb34ae3753fc81f7d7a945de5bfe33458/"
        "SUM/SummEval/data.pkl",
    },
    hub_source_id="mteb/summeval",
)
_SUMPUBMED_SRC = SourceSpec(
    name="SumPubMed",
    citation="""@inproceedings{gupta2021sumpubmed,
  title     = {SumPubMed: Summarization Dataset of PubMed Scientific Articles},
  author    = {Gupta, Vivek and Bharti, Prerna and Nokhiz, Pegah and Karnick, Harish},
  booktitle = {Proceedings of the ACL-IJCNLP 2021 Student Research Workshop},
  pages     = {292--303}, year = {2021}
}""",
    homepage="https://github.com/vgupta123/sumpubmed",
    licence="mit",
    redistribution=Redistribution.ALLOWED,
    terms="MIT (Gupta 2020); the authors' README also asks for non-commercial academic use. Articles are "
    "BioMed Central open-access papers.",
    origin_urls={
        "abstract": "https://raw.githubusercontent.com/vgupta123/sumpubmed/"
        "c190db237ba5b8c01efd247e45d13cf0c8162842/abstract/abstract_{n}.txt",
        "text": "https://raw.githubusercontent.com/vgupta123/sumpubmed/"
        "c190db237ba5b8c01efd247e45d13cf0c8162842/text/text_{n}.txt",
    },
)
_STORY_SRC = SourceSpec(
    name="Story Cloze Test",
    citation="""@inproceedings{mostafazadeh2017lsdsem,
  title     = {LSDSem 2017 Shared Task: The Story Cloze Test},
  author    = {Mostafazadeh, Nasrin and Roth, Michael and Louis, Annie and Chambers, Nathanael and Allen, James},
  booktitle = {Proceedings of the 2nd Workshop on Linking Models of Lexical, Sentential and
               Discourse-level Semantics},
  pages     = {46--51}, year = {2017}
}""",
    homepage="https://cs.rochester.edu/nlp/rocstories/",
    licence="other",
    redistribution=Redistribution.RESTRICTED,
    terms="ROCStories / Story Cloze data is distributed by the University of Rochester on request, for "
    "research use. There is no open licence and redistribution is not clearly allowed: request your own "
    "copy at https://cs.rochester.edu/nlp/rocstories/ and build locally.",
    hub_source_id="story_cloze",
)
_AE_SRC = SourceSpec(
    name="Answer Equivalence",
    citation="""@inproceedings{bulian2022tomayto,
  title     = {Tomayto, Tomahto. Beyond Token-level Answer Equivalence for Question Answering Evaluation},
  author    = {Bulian, Jannis and Buck, Christian and Gajewski, Wojciech and B{\\"o}rschinger, Benjamin and
               Schuster, Tal},
  booktitle = {Proceedings of the 2022 Conference on Empirical Methods in Natural Language Processing},
  pages     = {291--305}, year = {2022}
}""",
    homepage="https://github.com/google-research-datasets/answer-equivalence-dataset",
    licence="apache-2.0",
    redistribution=Redistribution.ALLOWED,
    terms="Apache-2.0 (Bulian et al. 2022); built on SQuAD (CC BY-SA 4.0).",
    origin_urls={
        "train": "https://raw.githubusercontent.com/google-research-datasets/answer-equivalence-dataset/"
        "5032298f3fe69bebab4a013de5606231a948cebc/v1/train.jsonl",
        "ae_dev": "https://raw.githubusercontent.com/google-research-datasets/answer-equivalence-dataset/"
        "5032298f3fe69bebab4a013de5606231a948cebc/v1/ae_dev.jsonl",
        "ae_test": "https://raw.githubusercontent.com/google-research-datasets/answer-equivalence-dataset/"
        "5032298f3fe69bebab4a013de5606231a948cebc/v1/ae_test.jsonl",
    },
)
_WMT_CITATION = """@inproceedings{kocmi2022findings,
  title     = {Findings of the 2022 Conference on Machine Translation (WMT22)},
  author    = {Kocmi, Tom and Bawden, Rachel and Bojar, Ond{\\v{r}}ej and others},
  booktitle = {Proceedings of the Seventh Conference on Machine Translation (WMT)},
  pages     = {1--45}, year = {2022}
}"""
_WMT_BASE = "https://raw.githubusercontent.com/wmt-conference/wmt22-news-systems/"
_WMT_HEAD = "20240a2e96a50e823ea8cdf37fd8af52547146e3"
_WMT_TERMS = (
    "WMT22 general test sets are released for research and evaluation use; no licence file. The content "
    "is news, e-commerce, social and conversational text owned by its publishers."
)


def _wmt_src(pair: str, src_lang: str, xml_url: str) -> SourceSpec:
    return SourceSpec(
        name=f"WMT22 general test ({pair})",
        citation=_WMT_CITATION,
        homepage="https://github.com/wmt-conference/wmt22-news-systems",
        licence="other",
        redistribution=Redistribution.RESTRICTED,
        terms=_WMT_TERMS,
        origin_urls={
            "src": f"{_WMT_BASE}{_WMT_HEAD}/txt/sources/generaltest2022.{pair}.src.{src_lang}",
            "ref": f"{_WMT_BASE}{_WMT_HEAD}/txt/references/generaltest2022.{pair}.ref.A.en",
            "xml": xml_url,
        },
    )


# --------------------------------------------------------------------------------------------
# The six datasets
# --------------------------------------------------------------------------------------------
_SUMMARY_METRICS = (_SUM_COHERENCE, _SUM_CONSISTENCY, _SUM_FLUENCY, _SUM_RELEVANCE)

SUMMEVAL = DatasetSpec(
    name="summeval",
    pretty_name="DHP SummEval",
    task=TaskKind.SUMMARIZATION.value,
    source=_SUMMEVAL_SRC,
    selection=Selection(
        rule="For each of the 100 articles, the reference summary with the most sentences (ties: lowest index).",
        n_items=100,
        seed=SEED,
        sample=False,
    ),
    judged_field="summary",
    judged_label="Summary",
    context_fields=(ContextField("article", "Source Article"),),
    metrics=_SUMMARY_METRICS,
    perturbations=_char(10, 50)
    + _llm_word("summary", (MINOR, MAJOR), "a grammatical error")
    + _SUMMARY_SENTENCE,
    weights=_summary_weights(),
    paper_stats=PaperStats(340.4, 58.3, 4.0),
)

SUMPUBMED = DatasetSpec(
    name="sumpubmed",
    pretty_name="DHP SumPubMed",
    task=TaskKind.SUMMARIZATION.value,
    source=_SUMPUBMED_SRC,
    selection=Selection(
        rule="BACKGROUND section of article and abstract only; 100 random pairs.", n_items=100, seed=SEED
    ),
    judged_field="summary",
    judged_label="Summary",
    context_fields=(ContextField("article", "Source Article"),),
    metrics=_SUMMARY_METRICS,
    perturbations=_char(20, 100)
    + _llm_word("summary", (MINOR, MAJOR), "a grammatical error")
    + _SUMMARY_SENTENCE,
    weights=_summary_weights(),
    paper_stats=PaperStats(803.5, 114.9, 5.5),
)

STORY_CLOZE = DatasetSpec(
    name="story-cloze",
    pretty_name="DHP Story Cloze",
    task=TaskKind.STORY_COMPLETION.value,
    source=_STORY_SRC,
    selection=Selection(
        rule="100 random stories from the spring 2016 validation set.", n_items=100, seed=SEED
    ),
    judged_field="ending",
    judged_label="Story Ending",
    context_fields=(ContextField("story", "Story"),),
    metrics=(_STORY_COHERENCE, _STORY_CONSISTENCY, _STORY_FLUENCY),
    perturbations=_char(5, None)
    + _llm_word("ending", (SINGLE,), "one grammatical error")
    + (
        Perturbation(
            "sent_random_ending",
            S,
            R,
            Operation.OTHER_ITEM,
            SINGLE,
            "Replace the ending with the right ending of another random story.",
        ),
        Perturbation(
            "sent_wrong_ending",
            S,
            R,
            Operation.WRONG_ENDING,
            SINGLE,
            "Replace the ending with the dataset's wrong ending for this story.",
        ),
    ),
    weights=_STORY_WEIGHTS,
    paper_stats=PaperStats(38.7, 7.4, 1.0),
)

ANSWER_EQUIVALENCE = DatasetSpec(
    name="answer-equivalence",
    pretty_name="DHP Answer Equivalence",
    task=TaskKind.QUESTION_ANSWERING.value,
    source=_AE_SRC,
    selection=Selection(
        rule="Reference answers longer than 150 characters (train, dev and test pooled, de-duplicated); 100 random.",
        n_items=100,
        seed=SEED,
        min_chars=150,
    ),
    judged_field="answer",
    judged_label="Answer",
    context_fields=(
        ContextField("question", "Question"),
        ContextField("paragraph", "Paragraph", required=False),
    ),
    metrics=(_ANSWER_QUALITY,),
    perturbations=_char(5, 25)
    + _llm_word("answer", (MINOR, MAJOR), "one grammatical error")
    + (
        Perturbation(
            "sent_random_answer",
            S,
            R,
            Operation.OTHER_ITEM,
            SINGLE,
            "Replace the answer with the reference answer of another random question.",
        ),
    ),
    weights=_AE_WEIGHTS,
    paper_stats=PaperStats(156.2, 23.9, 1.0),
)


def _wmt(pair: str, src_lang: str, lang_name: str, xml_url: str, stats: PaperStats) -> DatasetSpec:
    return DatasetSpec(
        name=f"wmt22-{pair}",
        pretty_name=f"DHP WMT22 {pair}",
        task=TaskKind.TRANSLATION.value,
        source=_wmt_src(pair, src_lang, xml_url),
        selection=Selection(
            rule="Consecutive segments of one document joined until the English reference passes 300 "
            "characters (never across documents); 100 random items.",
            n_items=100,
            seed=SEED,
            min_chars=300,
        ),
        judged_field="translation",
        judged_label="Translation",
        context_fields=(ContextField("source", f"Source Text ({lang_name})"),),
        metrics=(_MT_ACCURACY, _MT_FLUENCY),
        perturbations=_char(10, 50)
        + tuple(
            Perturbation(
                f"word_deletion_{s.value}",
                W,
                R,
                Operation.WORD_DELETION,
                s,
                f"Delete {k} consecutive words at a random position.",
                k,
            )
            for s, k in ((MINOR, 5), (MAJOR, 25))
        )
        + _llm_word("translation", (MINOR, MAJOR), "one grammatical error"),
        weights=_mt_weights(),
        paper_stats=stats,
    )


WMT22_DE_EN = _wmt(
    "de-en",
    "de",
    "German",
    f"{_WMT_BASE}{_WMT_HEAD}/xml/wmttest2022.de-fr.all.xml",
    PaperStats(436.8, 71.0, 3.8),
)
WMT22_ZH_EN = _wmt(
    "zh-en",
    "zh",
    "Chinese",
    f"{_WMT_BASE}37f67aa2ae572f0ba7a5c0890f3162ddd1cc8265/xml/wmttest2022.zh-en.xml",
    PaperStats(434.1, 66.4, 1.1),
)

BENCHMARK: Mapping[str, DatasetSpec] = {
    d.name: d for d in (SUMMEVAL, SUMPUBMED, STORY_CLOZE, ANSWER_EQUIVALENCE, WMT22_DE_EN, WMT22_ZH_EN)
}
DATASET_NAMES: tuple[str, ...] = tuple(BENCHMARK)


def get_dataset(name: str) -> DatasetSpec:
    """The built-in dataset `name`, or a :class:`SpecError` listing the valid names."""
    try:
        return BENCHMARK[name]
    except KeyError:
        raise SpecError(f"unknown dataset {name!r}; valid: {', '.join(DATASET_NAMES)}") from None


def resolve_datasets(selector: str | Iterable[str]) -> tuple[DatasetSpec, ...]:
    """``"all"``, ``"summeval,wmt22-de-en"`` or an iterable of names -> dataset specs, in order given."""
    if isinstance(selector, str):
        names = (
            list(DATASET_NAMES)
            if selector.strip() == "all"
            else [s.strip() for s in selector.split(",") if s.strip()]
        )
    else:
        names = list(selector)
    if not names:
        raise SpecError(f"no dataset selected; valid: all, {', '.join(DATASET_NAMES)}")
    return tuple(get_dataset(n) for n in names)
