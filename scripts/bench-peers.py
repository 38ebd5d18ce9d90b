"""Search peers on Factdesk's own sentences: SQLite FTS5, bm25s and scikit-learn TF-IDF.

Run by scripts/bench-peers.sh, which first imports the corpus with `factdesk-bench
import-search` (keeping its data folder and writing its queries). Every peer indexes the very
sentences that import stored (read from its SQLite database, cut by their byte spans) and runs
the very same queries, one at a time, timed alone; recall@k counts a query as found when a
sentence of its own document is among the k hits, as the Factdesk benchmark does.

Factdesk's figure is its full core path (index, SQLite join, snippets); the peers' figures are
ranking only: a peer that ties Factdesk does less work for it. Prints one table.
"""

import argparse
import json
import re
import sqlite3
import statistics
import sys
import time

import bm25s
import numpy as np
import Stemmer
from sklearn.feature_extraction.text import TfidfVectorizer


def read_sentences(database):
    """(sentence document ids, sentence texts) in sentence-id order."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    rows = connection.execute(
        "SELECT s.document_id, d.text, s.start_byte, s.end_byte "
        "FROM sentences s JOIN documents d ON d.id = s.document_id ORDER BY s.id"
    )
    documents, texts = [], []
    cache_id, cache_bytes = None, b""
    for document_id, text, start, end in rows:
        if document_id != cache_id:
            cache_id, cache_bytes = document_id, text.encode("utf-8")
        documents.append(document_id)
        texts.append(cache_bytes[start:end].decode("utf-8"))
    connection.close()
    return np.array(documents), texts


def percentile(sorted_values, p):
    return sorted_values[round((len(sorted_values) - 1) * p)]


def timed_queries(queries, search, documents, limit):
    """Runs each query alone after a warm-up; returns (p50 ms, p95 ms, recall)."""
    for query in queries[:20]:
        search(query["query"])
    latencies, found = [], 0
    for query in queries:
        started = time.perf_counter()
        hits = search(query["query"])
        latencies.append((time.perf_counter() - started) * 1000.0)
        if any(documents[hit] == query["document"] for hit in hits[:limit]):
            found += 1
    latencies.sort()
    return percentile(latencies, 0.5), percentile(latencies, 0.95), found / len(queries)


WORD = re.compile(r"\w+")


def fts5(texts, limit):
    connection = sqlite3.connect(":memory:")
    started = time.perf_counter()
    connection.execute("CREATE VIRTUAL TABLE s USING fts5(text, tokenize='porter unicode61')")
    connection.executemany("INSERT INTO s(rowid, text) VALUES (?, ?)", enumerate(texts))
    connection.commit()
    build = time.perf_counter() - started

    def search(query):
        words = WORD.findall(query)
        match = " OR ".join('"' + word.replace('"', '""') + '"' for word in words)
        rows = connection.execute(
            "SELECT rowid FROM s WHERE s MATCH ? ORDER BY rank LIMIT ?", (match, limit)
        )
        return [row[0] for row in rows]

    return build, search


def bm25s_peer(texts, limit):
    stemmer = Stemmer.Stemmer("english")
    started = time.perf_counter()
    tokens = bm25s.tokenize(texts, stopwords=None, stemmer=stemmer, show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(tokens, show_progress=False)
    build = time.perf_counter() - started

    def search(query):
        query_tokens = bm25s.tokenize(
            [query], stopwords=None, stemmer=stemmer, show_progress=False
        )
        if not query_tokens.vocab:
            return []
        results, _ = retriever.retrieve(
            query_tokens, k=min(limit, len(texts)), show_progress=False, n_threads=1
        )
        return list(results[0])

    return build, search


def tfidf(texts, limit):
    started = time.perf_counter()
    vectorizer = TfidfVectorizer(sublinear_tf=True)
    matrix = vectorizer.fit_transform(texts)
    # Term-major (inverted) layout: a query touches only the rows of its own terms.
    inverted = matrix.T.tocsr()
    build = time.perf_counter() - started

    def search(query):
        vector = vectorizer.transform([query])
        if vector.nnz == 0:
            return []
        scores = (vector @ inverted).tocsr()
        if scores.nnz == 0:
            return []
        data, columns = scores.data, scores.indices
        top = np.argpartition(-data, min(limit, len(data)) - 1)[:limit]
        return list(columns[top[np.argsort(-data[top])]])

    return build, search


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("database", help="factdesk.sqlite3 of the benchmark's data folder")
    parser.add_argument("queries", help="JSON lines written by import-search --export-queries")
    parser.add_argument("factdesk", help="import-search --json figures, one file per run", nargs="+")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--runs", type=int, default=2, help="timed passes per peer")
    args = parser.parse_args()

    queries = [json.loads(line) for line in open(args.queries, encoding="utf-8")]
    documents, texts = read_sentences(args.database)
    text_mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    print(
        f"{len(texts)} sentences ({text_mb:.1f} MB of text), {len(queries)} queries, "
        f"top {args.limit}",
        file=sys.stderr,
    )

    rows = []
    runs = [json.load(open(path, encoding="utf-8")) for path in args.factdesk]
    for index, run in enumerate(runs, 1):
        rows.append(
            (
                f"factdesk (run {index}; full path)",
                run["search_ms_p50"],
                run["search_ms_p95"],
                run["recall"],
                None,
            )
        )
    for name, build_peer in (
        ("sqlite fts5 (OR query)", fts5),
        ("bm25s", bm25s_peer),
        ("sklearn tf-idf (inverted)", tfidf),
    ):
        print(f"indexing with {name}", file=sys.stderr)
        build, search = build_peer(texts, args.limit)
        for run in range(1, args.runs + 1):
            p50, p95, recall = timed_queries(queries, search, documents, args.limit)
            rows.append((f"{name} (run {run})", p50, p95, recall, text_mb / build))

    base_p50 = statistics.median(run["search_ms_p50"] for run in runs)
    base_p95 = statistics.median(run["search_ms_p95"] for run in runs)
    print(
        f"{'engine':<36} {'p50 ms':>8} {'p95 ms':>8} {'p50 ×fd':>8} {'p95 ×fd':>8} "
        f"{'recall':>7} {'index MB/s':>10}"
    )
    for name, p50, p95, recall, speed in rows:
        indexing = "" if speed is None else f"{speed:.1f}"
        print(
            f"{name:<36} {p50:>8.3f} {p95:>8.3f} {p50 / base_p50:>8.2f} {p95 / base_p95:>8.2f} "
            f"{recall:>7.3f} {indexing:>10}"
        )
    print(
        "×fd: the peer's latency over Factdesk's (median of its runs); above 1 means Factdesk "
        "is faster. Peers' index MB/s is of sentence text already split; Factdesk's import "
        "figure (file MB/s) includes parsing, splitting and SQLite."
    )


if __name__ == "__main__":
    main()
