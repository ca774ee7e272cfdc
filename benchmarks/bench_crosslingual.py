"""English questions over Chinese knowledge: the tidb_faq_zh dev set's questions asked in
English (42 of its 248, every sixth, translated here), scored against the set's own gold
documents on an index of its Chinese corpus, for this tree and a baseline tree in one run.

    .venv/bin/python benchmarks/bench_crosslingual.py --index DIR [--before TREE]
        [--eval-dir DIR]

DIR is an index of tidb_faq_zh's corpus (`bench_eval.py --sets tidb_faq_zh --out OUT` builds
OUT/tidb_faq_zh). The gold comes from ../shared/eval/tidb_faq_zh/queries.jsonl at run time;
only the English wording of each question lives here. Each tree is measured in its own
interpreter (PYTHONPATH) on the same index. Quality only: `bench_query.py` measures speed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("KB_EVAL_DIR") or ROOT.parent / "shared" / "eval")

ENGLISH = {
    "tidbfaq_001": 'Does DM support migrating data from Alibaba RDS and other cloud databases?',
    "tidbfaq_007": 'With online-ddl: true set, how do I handle errors from DDL on gh-ost tables?',
    "tidbfaq_013": "Why can't log backup be used when the upstream database imports data with TiDB Lightning physical import mode?",
    "tidbfaq_019": "Why can't data restored by BR be replicated to the upstream cluster of TiCDC?",
    "tidbfaq_025": 'During restore I get the error could not read local://...:download sst failed, what should I do?',
    "tidbfaq_031": 'After restoring data with BR, do I need to run ANALYZE on the tables to update the statistics TiDB keeps on tables and indexes?',
    "tidbfaq_037": 'Which operating systems does TiDB support?',
    "tidbfaq_043": 'Should the Prometheus + Grafana monitoring machines for TiDB be deployed on one machine or several?',
    "tidbfaq_049": 'Can TiDB be deployed on a public cloud?',
    "tidbfaq_055": "How do I change a user's password and privileges?",
    "tidbfaq_061": 'Where are the various files of TiDB, TiKV and PD nodes stored?',
    "tidbfaq_067": "I can't tell the difference between TiDB master versions, what should I do?",
    "tidbfaq_073": 'Why is the size recorded in information_schema.tables.data_length different from the store size on the TiKV monitoring dashboard?',
    "tidbfaq_079": 'Is the number of replicas of each region configurable? How do I change it?',
    "tidbfaq_085": 'Can TiDB use S3 as backend storage?',
    "tidbfaq_091": 'What does EXPENSIVE_QUERY mean in the TiDB log?',
    "tidbfaq_097": 'What causes TiKV channel full?',
    "tidbfaq_103": 'How is a Region split?',
    "tidbfaq_109": 'What is the main role of the Coprocessor component?',
    "tidbfaq_115": 'Our DBA tested MySQL performance; why is a single TiDB not as fast as MySQL?',
    "tidbfaq_121": 'How do I migrate from Db2 or Oracle databases to TiDB?',
    "tidbfaq_127": 'What causes Transaction too large and how do I fix it?',
    "tidbfaq_133": 'What is the most efficient and fastest way to delete data?',
    "tidbfaq_139": 'Does TiDB support secondary keys?',
    "tidbfaq_145": "Can TiDB's codec guarantee that UTF8 strings are memcomparable? Our keys need UTF8, any encoding advice?",
    "tidbfaq_151": 'Is space released immediately after deleting data in TiDB?',
    "tidbfaq_157": "Can I use Optimizer Hints to control the optimizer's behavior?",
    "tidbfaq_163": 'How do I solve problems caused by collation changes after upgrading TiDB?',
    "tidbfaq_169": 'How do I tell whether a table needs analyze?',
    "tidbfaq_175": 'What are the main roles of TiDB, TiKV and Placement Driver (PD)?',
    "tidbfaq_181": 'Besides the official documentation, are there other ways to learn about TiDB?',
    "tidbfaq_187": 'What are the effects of a rolling upgrade?',
    "tidbfaq_193": 'After the upstream stops updating, how do I know TiCDC has replicated all updates downstream?',
    "tidbfaq_199": 'Does TiCDC support outputting change data in the Canal protocol?',
    "tidbfaq_205": 'When TiCDC replicates data to Kafka, how do I tell at what time the data changes in a message happened?',
    "tidbfaq_211": 'Why are default values of time type columns inconsistent when replicating DDL to downstream MySQL 5.7?',
    "tidbfaq_217": 'How do I deploy TiCDC to replicate data between two TiDB clusters in different regions?',
    "tidbfaq_223": 'Does TiCDC replicate generated columns in DML operations?',
    "tidbfaq_229": 'If one table fails while TiDB Lightning imports data, does it affect other tables? Does the process exit at once?',
    "tidbfaq_235": 'How do I stop the tidb-lightning process correctly?',
    "tidbfaq_241": 'How do I copy a schema with TiDB Lightning and Dumpling?',
    "tidbfaq_247": 'Can port and directory conflicts within the same cluster be detected?',
}

RUN = """
import json, sys
from pathlib import Path
from kbtools.index.reader import open_index
from kbtools.query.quality import evaluate, load_questions
row = evaluate(open_index(Path(sys.argv[1])), load_questions(Path(sys.argv[2])))
row.pop("per_question")
print(json.dumps(row))
"""


def questions(eval_dir: Path, dest: Path) -> Path:
    """The English questions with the set's gold, as a questions file at `dest`."""
    src = eval_dir / "tidb_faq_zh" / "queries.jsonl"
    by_id = {q["id"]: q for q in map(json.loads, src.read_text(encoding="utf-8").splitlines())}
    lines = [json.dumps({**by_id[i], "query": text}, ensure_ascii=False)
             for i, text in ENGLISH.items()]
    dest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return dest


def measure(tree: Path, index: str, qfile: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", RUN, index, str(qfile)], env=env, cwd=tree,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", required=True, help="an index of tidb_faq_zh's corpus")
    ap.add_argument("--before", default="", help="a baseline tree (e.g. a worktree of main)")
    ap.add_argument("--eval-dir", default=str(SHARED))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        qfile = questions(Path(args.eval_dir), Path(tmp) / "english.jsonl")
        trees = [("before", Path(args.before))] if args.before else []
        trees.append(("after", ROOT))
        keys = ("ndcg@10", "mrr@10", "hit@1", "hit@10", "no_answer_precision")
        print(f"{len(ENGLISH)} English questions over tidb_faq_zh's Chinese corpus (hybrid)")
        print("tree   | " + " | ".join(keys))
        for name, tree in trees:
            row = measure(tree, args.index, qfile)
            print(f"{name:6s} | " + " | ".join(str(row[k] if row.get(k) is not None else "–") for k in keys))


if __name__ == "__main__":
    main()
