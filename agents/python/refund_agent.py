#!/usr/bin/env python3
"""A small refund agent in Python that speaks killpoint's kill protocol.

Dana's task in miniature: look up her order, refund one torn sleeping pad ($79.50), answer her.
The agent keeps a journal (temp file, then rename) of the steps it finished and, with --keys,
sends the refund with an idempotency key made from the run and the step. The shop is its own
SQLite file in WAL mode, with the rule "no refund above what is left" and a key table.

--single-pad: the order line holds one pad, not two, so a repeat of the refund is refused by the
shop ("over-refund"); the tool-result event then says so ("refused": reason), which is how an
agent tells killpoint that the shop refused a call.

--compact-on-resume plants a bug that only a kill during the recovery finds: the run id (the keys'
first half) is made when the run starts and kept in the journal, and a resume "compacts" the
journal by rewriting it in place; killed mid-rewrite, the journal is left empty, the next life
takes it for a run never started and makes a new run id, so its keys no longer match.

Protocol (see killpoint's README): KILLPOINT_STATE_DIR holds shop.sqlite (with write_log),
journal.json and outbox.jsonl; one JSON line per event goes to KILLPOINT_EVENTS; right after
event KILLPOINT_KILL_AFTER the agent sends itself SIGKILL (-1: before anything).
"""

import json
import os
import signal
import sqlite3
import sys

RUN_ID = "py-dana"
ORDER, LINE, AMOUNT_CENTS = "O-1042", "L1", 7950
EXIT_FAILED = 3


class Events:
    """Appends one line per event with a single write(2), then dies if it is the kill point."""

    def __init__(self, path, kill_after):
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.kill_after = kill_after
        self.index = 0
        if kill_after == -1:
            die()

    def emit(self, kind, **fields):
        event = {"index": self.index, "kind": kind, **fields}
        os.write(self.fd, (json.dumps(event) + "\n").encode())
        if self.index == self.kill_after:
            die()
        self.index += 1


def die():
    # SIGKILL: no handler, no finally, no flush runs after this line.
    os.kill(os.getpid(), signal.SIGKILL)


def open_shop(path, quantity):
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("BEGIN IMMEDIATE")
    seeded = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'order_lines'").fetchone()
    if not seeded:
        for sql in [
            "CREATE TABLE order_lines (order_id TEXT, line_id TEXT, item TEXT, quantity INTEGER, price_cents INTEGER, PRIMARY KEY (order_id, line_id))",
            "CREATE TABLE refunds (id INTEGER PRIMARY KEY, order_id TEXT, line_id TEXT, amount_cents INTEGER)",
            "CREATE TABLE write_log (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, target TEXT NOT NULL, args TEXT NOT NULL, key TEXT)",
            "CREATE TABLE idempotency_keys (key TEXT PRIMARY KEY, result TEXT NOT NULL)",
        ]:
            db.execute(sql)
        db.execute("INSERT INTO order_lines VALUES (?, ?, ?, ?, ?)", (ORDER, LINE, "Ridgeline sleeping pad", quantity, AMOUNT_CENTS))
    db.execute("COMMIT")
    return db


def get_order(db, args, key):
    rows = db.execute(
        "SELECT line_id, item, quantity * price_cents, (SELECT COALESCE(SUM(amount_cents), 0) FROM refunds r "
        "WHERE r.order_id = l.order_id AND r.line_id = l.line_id) FROM order_lines l WHERE order_id = ?",
        (args["orderId"],),
    ).fetchall()
    return {"ok": True, "lines": [{"lineId": r[0], "item": r[1], "totalCents": r[2], "refundedCents": r[3]} for r in rows]}, False


def refund(db, args, key):
    """One transaction: the key check, the rule, the refund and its log row commit together."""
    db.execute("BEGIN IMMEDIATE")
    try:
        if key is not None:
            seen = db.execute("SELECT result FROM idempotency_keys WHERE key = ?", (key,)).fetchone()
            if seen:
                db.execute("COMMIT")
                return json.loads(seen[0]), False
        total, refunded = db.execute(
            "SELECT quantity * price_cents, (SELECT COALESCE(SUM(amount_cents), 0) FROM refunds r "
            "WHERE r.order_id = l.order_id AND r.line_id = l.line_id) FROM order_lines l WHERE order_id = ? AND line_id = ?",
            (args["orderId"], args["lineId"]),
        ).fetchone()
        left = total - refunded
        if args["amountCents"] > left:
            result, committed = {"ok": False, "refused": "over-refund"}, False
        else:
            cur = db.execute("INSERT INTO refunds (order_id, line_id, amount_cents) VALUES (?, ?, ?)",
                             (args["orderId"], args["lineId"], args["amountCents"]))
            db.execute("INSERT INTO write_log (kind, target, args, key) VALUES (?, ?, ?, ?)",
                       ("refund", f"{args['orderId']}/{args['lineId']}", json.dumps(args, sort_keys=True), key))
            result, committed = {"ok": True, "refundId": cur.lastrowid, "leftCents": left - args["amountCents"]}, True
        if key is not None:
            db.execute("INSERT INTO idempotency_keys VALUES (?, ?)", (key, json.dumps(result)))
        db.execute("COMMIT")
        return result, committed
    except BaseException:
        db.execute("ROLLBACK")
        raise


# The "model" is scripted: the same plan every time, as a recorded reply would be.
PLAN = [
    {"id": "step-1", "tool": "get_order", "args": {"orderId": ORDER}},
    {"id": "step-2", "tool": "refund", "args": {"orderId": ORDER, "lineId": LINE, "amountCents": AMOUNT_CENTS}},
]
TOOLS = {"get_order": get_order, "refund": refund}


def load_journal(path):
    """The finished steps. A stale temp file is a save that never happened; a bad journal stops us."""
    if os.path.exists(path + ".tmp"):
        os.remove(path + ".tmp")
    if not os.path.exists(path):
        return {"runId": RUN_ID, "done": []}
    with open(path) as f:
        text = f.read()
    try:
        journal = json.loads(text)
    except ValueError as error:
        print(f"cannot resume from the journal at {path}: not valid JSON ({error})", file=sys.stderr)
        sys.exit(EXIT_FAILED)
    if journal.get("runId") != RUN_ID:
        print(f"cannot resume from the journal at {path}: runId is not {RUN_ID}", file=sys.stderr)
        sys.exit(EXIT_FAILED)
    return journal


def save_journal(path, journal, events):
    with open(path + ".tmp", "w") as f:
        f.write(json.dumps(journal))
    events.emit("journal-write")
    os.rename(path + ".tmp", path)
    events.emit("journal-save")


def open_compacting_journal(path, events, life):
    """The planted bug of --compact-on-resume (see the top of this file)."""
    if os.path.exists(path + ".tmp"):
        os.remove(path + ".tmp")
    text = ""
    if os.path.exists(path):
        with open(path) as f:
            text = f.read()
    if text == "":  # no journal, or (the bug's second half) an empty one: a run never started
        journal = {"runId": f"{RUN_ID}-{life}", "done": []}
        save_journal(path, journal, events)
        return journal
    journal = json.loads(text)
    with open(path, "w") as f:  # in place: the file is empty from here until the write below
        events.emit("journal-compact")
        f.write(json.dumps(journal))
    return journal


def answer_text(result):
    if not result.get("ok"):
        return "I'm sorry, Dana: the refund was refused. I've passed your request to a person."
    return (f"I'm sorry the pad arrived torn, Dana. I've refunded $79.50 for one sleeping pad (refund #{result['refundId']}); "
            f"${result['leftCents'] / 100:.2f} is left on that line.")


def main():
    keys = "--keys" in sys.argv[1:]
    compacting = "--compact-on-resume" in sys.argv[1:]
    state = os.environ["KILLPOINT_STATE_DIR"]
    kill_after = os.environ.get("KILLPOINT_KILL_AFTER", "")
    events = Events(os.environ["KILLPOINT_EVENTS"], int(kill_after) if kill_after != "" else None)
    outbox = os.path.join(state, "outbox.jsonl")
    if os.path.exists(outbox):
        return  # the task already ended: the customer has the answer
    db = open_shop(os.path.join(state, "shop.sqlite"), 1 if "--single-pad" in sys.argv[1:] else 2)
    journal_path = os.path.join(state, "journal.json")
    if compacting:
        journal = open_compacting_journal(journal_path, events, os.environ.get("KILLPOINT_LIFE", "0"))
    else:
        journal = load_journal(journal_path)
    done = {d["step"]: d["result"] for d in journal["done"]}
    for step in PLAN:
        if step["id"] in done:
            continue
        key = f"{journal['runId']}:{step['id']}" if keys and step["tool"] == "refund" else None
        events.emit("tool-start", tool=step["tool"], callId=step["id"])
        result, committed = TOOLS[step["tool"]](db, step["args"], key)
        if committed:
            events.emit("shop-commit", tool=step["tool"], callId=step["id"])
        refused = {"refused": result["refused"]} if result.get("refused") else {}
        events.emit("tool-result", tool=step["tool"], callId=step["id"], **refused)
        journal["done"].append({"step": step["id"], "result": result})
        done[step["id"]] = result
        save_journal(journal_path, journal, events)
    with open(outbox, "a") as f:
        f.write(json.dumps({"runId": RUN_ID, "text": answer_text(done["step-2"])}) + "\n")
    events.emit("answer-delivered")


if __name__ == "__main__":
    main()
