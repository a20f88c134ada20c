"""peerdiff's classification of a differing program.

Each program is also run in a few counterfactual variants ("cures"): without the cancel, with every
`CancellablePromise.pending()` replaced by `Promise.pending().cancellize()`, with every ensureThen
clean-up already fulfilled, with each race replaced by a map. A cure that makes the two traces equal
names the cause; the trace features (see peerdiff.features) decide the rest. Classes:
  a  a documented deliberate difference (docs/migrating-from-promisekit-7-and-cancellablepromisekit.md,
     docs/semantics.md), with the rule
  b  a PromiseKit 7 bug
  c  a likely defect of ours
  d  unclear
"""
import copy

RULE_BODY = "a: cancel takes effect at once, even inside a running body; no body starts after cancel() returned"
RULE_RECOVER = "a: recover never un-cancels a chain; its body does not start after a cancel of its own branch"
RULE_ISCANCELLED = "a: isCancelled is true only if a cancel rejected a member (cancelAttempted = cancel was called)"
RULE_CLEANUP = "a: the clean-up chain an ensureThen body returns is not linked (semantics.md 8)"
RULE_NESTED = "a: nested deliveries are queued, not recursed: handlers a handler triggers run when it returns (semantics.md 6)"
RULE_ADDED = "a: a stage added after a cancel is rejected with the cancel error (migration guide, Semantics to know)"
RULE_COMB = "a: race/when without autoCancel: inputs are members of the result's chain (a cancel of the chain reaches a pending input; a settled result leaves the others alone)"
RULE_BRANCH = "a: recover starts a branch (and race/when/ensure a context of their own): a cancel of the chain before it does not reach it"
RULE_HOLD = "a: ensure/ensureThen hold a cancel back from later stages until the clean-up finished"
RULE_CLEANUP_CANCEL = "a: a cancel made before a rejected ensureThen clean-up chain wins: the stages after it are rejected with the cancel error, not the clean-up's (CancellableChains.md, clean-up)"
RULE_XCANCEL = ("a: race/when: the link goes from the result to its inputs only: an input whose chain a cancel reached "
                "(before the result was made, or a race's input rejected at once) cancels neither the result's chain nor "
                "the other inputs (CancellableChains.md, Combinators; PK7's appendCancelContext cancels the appending chain when the appended one "
                "had a cancel: CancelContext.swift:151)")
RULE_REACH = ("a: race/when: a cancel of the result's chain reaches its pending inputs and their chains, even after "
              "the result settled and a stage after it ran (CancellableChains.md, Combinators; PK7 drops the link when "
              "a stage after the result runs its body: CancellableThenable.swift, removeItems)")
BUG_RECOVER = ("b: a pending recover stage is not a member PK7's cancel rejects (CancellableCatchable.swift:281: a "
               "recover's promise joins the context only if it has a cancellable): it settles as its input does")


def slot_ids(p):
    ids = []

    def add(s):
        if "pending" in s:
            ids.append(s["pending"]["id"])
    add(p["root"])
    for st in p["stages"]:
        k, v = next(iter(st.items()))
        if k in ("then", "ensureThen"):
            add(v["src"])
        elif k in ("when", "race"):
            for b in v["branches"]:
                if "other" in b:
                    add(b["other"]["_0"])
    return ids


def fix(p):
    ids = set(slot_ids(p))
    p["steps"] = [i for i in p["steps"] if i in ids]
    c = p.get("cancel")
    if c and "step" in c["at"] and c["at"]["step"]["_0"] > len(p["steps"]):
        c["at"] = {"step": {"_0": len(p["steps"])}}
    return p


def variants(p):
    """name -> program, for the cures that change something."""
    out = {}
    if p.get("cancel"):
        q = copy.deepcopy(p)
        q.pop("cancel")
        out["no-cancel"] = q
    q = copy.deepcopy(p)
    hit = False
    for st in q["stages"]:
        if "then" in st and st["then"]["viaCP"]:
            st["then"]["viaCP"], hit = False, True
    if hit:
        out["no-viaCP"] = q
    q = copy.deepcopy(p)
    hit = False
    for st in q["stages"]:
        if "ensureThen" in st and "value" not in st["ensureThen"]["src"]:
            st["ensureThen"]["src"], hit = {"value": {}}, True
    if hit:
        out["cleanup-ok"] = fix(q)
    for comb in ("race", "when"):
        q = copy.deepcopy(p)
        hit = False
        for i, st in enumerate(q["stages"]):
            if comb in st:
                q["stages"][i], hit = {"map": {"fail": False}}, True
        if hit:
            out["no-" + comb] = fix(q)
    q = copy.deepcopy(p)
    hit = False
    for st in q["stages"]:
        if "then" in st and st["then"]["cancellable"] and "pending" in st["then"]["src"]:
            st["then"]["cancellable"], st["then"]["viaCP"], hit = False, False, True
    if hit:
        out["plain-then"] = q
    # every known cause at once
    known = [k for k in ("plain-then", "no-viaCP", "cleanup-ok", "no-race") if k in out]
    if len(known) > 1:
        q = copy.deepcopy(p)
        for st in q["stages"]:
            if "then" in st and st["then"]["cancellable"] and "pending" in st["then"]["src"]:
                st["then"]["cancellable"], st["then"]["viaCP"] = False, False
            if "ensureThen" in st:
                st["ensureThen"]["src"] = {"value": {}}
        for i, st in enumerate(q["stages"]):
            if "race" in st:
                q["stages"][i] = {"map": {"fail": False}}
        out["known:" + "+".join(known)] = fix(q)
    return out


def ours_only_bodies(tp, to):
    import collections
    import re
    pat = re.compile(r"^(s\d+(?:\.b\d+)?)\.\w+\(")
    a = collections.Counter(m.group(1) for m in map(pat.match, tp[0]) if m)
    b = collections.Counter(m.group(1) for m in map(pat.match, to[0]) if m)
    return list((b - a).keys())


def target_index(prog):
    t = (prog.get("cancel") or {}).get("target", {})
    n = len(prog["stages"])
    if "root" in t:
        return prog["cancellizeAt"] - 1
    if "stage" in t:
        return t["stage"]["_0"]
    if "finalizer" in t:
        return t["finalizer"]["_0"]
    if "end" in t or "context" in t:
        return n - 1
    return None


def is_cancel_state(v):
    return v.endswith("*)") or "E999" in v


def unreached(prog, tp, to, diff_members, kinds):
    """A cancel that PK7 spreads to a member and ours does not, across a recover or an ensure."""
    t = target_index(prog)
    if t is None:
        return None
    sp, so = tp[1], to[1]
    missed = [m for m in diff_members if is_cancel_state(sp[m]) and not is_cancel_state(so.get(m, ""))
              and branch_kind(prog, m) != "other"]  # an independent race/when input is no stage of the chain
    if not missed:
        return None
    for r, k in enumerate(kinds):
        if k == "recover" and t < r and any(stage_no(m) > r for m in missed) \
                and not any(e.startswith(f"s{r}.recover(") and ("*)" in e or "E999" in e) for e in to[0]):
            return "c: a cancel of a member before a settled recover does not reach the stages after the recover"
    for e, k in enumerate(kinds):
        if k in ("ensure", "ensureThen") and t > e and any(stage_no(m) < e or m in ("c", "p") for m in missed):
            return "c: a cancel that reaches a race/when input placed after an ensure/ensureThen does not reach the members before the clean-up"
    return None


def feats_states(feats):
    return any(f.startswith("state:") for f in feats)


def stage_no(m):
    return int(m[1:].split(".")[0]) if m.startswith("s") and m[1:2].isdigit() else -1


def pk7_bug(prog, tp, to, diff_members):
    """A PromiseKit 7 bug seen directly in its trace, or None."""
    ev, sp, so = tp[0], tp[1], to[1]
    cancel_at = next((i for i, e in enumerate(ev) if e.startswith("cancel ") and "no such" not in e), None)
    for i, st in enumerate(prog["stages"]):
        name = f"s{i}"
        if "then" in st and "pending" in st["then"]["src"] and cancel_at is not None and name in diff_members:
            ran = next((j for j, e in enumerate(ev) if e.startswith(name + ".then")), None)
            if ran is not None and ran < cancel_at and not sp[name].endswith("*)") and "E999" not in sp[name] \
                    and (so[name].endswith("*)") or "E999" in so[name]):
                return "b: a cancel while a then waits for the promise its body returned is lost: the stage settles as that promise does"
        if "race" in st and sp.get(name, "").startswith("F("):
            lost = any(k.startswith(name + ".b") and v.startswith("R(") and not v.endswith("*)") for k, v in sp.items())
            if lost and any(stage_no(m) > i and sp[m].endswith("*)") for m in diff_members):
                return "b: a race whose losing input rejects cancels the chain after it: stages after a fulfilled race are cancelled"
    return None


def cancelled_diff0(cured):
    return "no-cancel" in cured


def has(feats, *subs):
    return any(s in f for f in feats for s in subs)


def branch_kind(prog, m):
    """'derived' or 'other' for a combinator input s<i>.b<j>, else None."""
    import re
    x = re.match(r"^s(\d+)\.b(\d+)$", m)
    if not x:
        return None
    st = prog["stages"][int(x.group(1))]
    k, v = next(iter(st.items()))
    if k not in ("when", "race"):
        return None
    return next(iter(v["branches"][int(x.group(2))]))


def body_stages(ev):
    """The stage numbers of the body events of a trace, as a multiset (Counter of events)."""
    import collections
    import re
    pat = re.compile(r"^s(\d+)(?:\.b\d+)?\.\w+\(|^s(\d+)\.(?:ensure|ensureThen)$|^f(\d+)\.finally$")
    return collections.Counter(e for e in ev if pat.match(e))


def explain_members(prog, feats, tp, to):
    """(class, reason) if every member whose final state differs is explained by a documented rule
    (or a PromiseKit 7 bug) below, each checked on that member, else None. Bodies may differ only at
    or after the first differing stage (they are what the differing states run), the order of bodies
    only as nested deliveries (semantics.md 6), flags freely (they follow the states)."""
    c = prog.get("cancel")
    if not c:
        return None
    sp, so, ev_o = tp[1], to[1], to[0]
    diff = [m for m in sp if sp[m] != so.get(m)]
    if not diff or any(m not in so for m in diff):
        return None
    kinds = [next(iter(st)) for st in prog["stages"]]
    cerr = "R(E999)" if c.get("custom") else "R(cancelled*)"

    def ccl(v):  # rejected with this program's cancel error
        return v == cerr

    def idx(pred):
        return next((i for i, e in enumerate(ev_o) if pred(e)), None)

    cancel_at = idx(lambda e: e.startswith("cancel ") and "no such" not in e)
    built_at = idx(lambda e: e == "built")
    if cancel_at is None:
        cancel_at = len(ev_o)
    before_built = cancel_at < built_at
    after = c["at"]["build"]["after"] if "build" in c["at"] else None
    why = {}
    # clean-ups rejected with an error of their own, whose body ran after the cancel was made
    cleanups = []
    for e, st in enumerate(prog["stages"]):
        if "ensureThen" in st:
            src = st["ensureThen"]["src"]
            err = f"R(E{300 + e})" if "error" in src else (
                f"R(E{500 + src['pending']['id']})" if "pending" in src and not src["pending"]["ok"] else None)
            body = idx(lambda x, e=e: x == f"s{e}.ensureThen")
            if err and body is not None and cancel_at < body:
                cleanups.append((e, err))
    # combinators whose result PK7 cancels when it is made (an input's chain was already cancelled,
    # or a race input was rejected at once)
    xc = []
    for i, k in enumerate(kinds):
        if k not in ("when", "race"):
            continue
        bs = prog["stages"][i][k]["branches"]
        if (before_built and any(ccl(so.get(f"s{i}.b{j}", "")) for j in range(len(bs)))) \
                or (k == "race" and any(b.get("other", {}).get("_0", {}).get("error") is not None for b in bs)):
            xc.append(i)
    t = target_index(prog)
    for m in diff:
        n, bk = stage_no(m), branch_kind(prog, m)
        x, y = sp[m], so[m]
        if ccl(y) and any(x == err and n >= e for e, err in cleanups):
            why[m] = RULE_CLEANUP_CANCEL
        elif ccl(y) and not is_cancel_state(x) and after is not None and before_built and n > after and bk != "other":
            why[m] = RULE_ADDED
        elif is_cancel_state(x) and not is_cancel_state(y) and any(
                (n == i and bk != "derived") or n > i for i in xc):
            why[m] = RULE_XCANCEL
        elif ccl(y) and not is_cancel_state(x) and t is not None and any(
                t >= i and (n < i or (n == i and bk is not None)) for i, k in enumerate(kinds) if k in ("when", "race")):
            why[m] = RULE_REACH
        elif ccl(y) and x.startswith("F(") and any(
                kinds[r] == "recover" and r <= n and sp.get(f"s{r}", "").startswith("F(") and ccl(so.get(f"s{r}", ""))
                and not any(e.startswith(f"s{r}.recover(") for e in tp[0] + ev_o) for r in range(len(kinds))):
            why[m] = BUG_RECOVER
    # the rest must carry on a differing state of an explained member at or before its stage
    changed = True
    while changed:
        changed = False
        for m in diff:
            if m in why:
                continue
            src = [k for k in why if stage_no(k) <= stage_no(m) and sp[k] == sp[m] and so[k] == so[m]]
            if src:
                why[m] = why[src[0]]
                changed = True
    if len(why) != len(diff):
        return None
    first = min(stage_no(m) for m in diff)
    bp, bo = body_stages(tp[0]), body_stages(ev_o)
    for e in (bp - bo) + (bo - bp):
        if stage_no(e.split(".")[0] if e[0] == "s" else "s" + e[1:].split(".")[0]) < first:
            return None
    rules = sorted(set(why.values()))
    cls = "b" if any(r.startswith("b") for r in rules) else "a"
    if len(rules) == 1:
        return cls, rules[0]
    short = {RULE_CLEANUP_CANCEL: "cancel before a rejected clean-up", RULE_ADDED: "stage added after a cancel",
             RULE_XCANCEL: "race/when input does not cancel the result", RULE_REACH: "cancel of a race/when reaches its inputs",
             BUG_RECOVER: "PK7 bug: recover stage not cancellable"}
    return cls, f"{cls}: several of the rules above at once (" + ", ".join(short[r] for r in rules) + ")"


def classify(prog, feats, tp, to, cured=None):
    """(class, reason). `cured`: the names of the variants whose traces agree (bodies and states;
    the flags are compared only for a program whose bodies and states agree)."""
    cured = cured or set()
    flags_only = all(f.startswith("flag:") for f in feats)
    if flags_only:
        return classify_flags(prog, feats, tp, to)
    if has(feats, "crash:pk7"):
        return "b", "b: PromiseKit 7 traps (libdispatch: dispatch_sync on a queue this thread holds)"
    if has(feats, "crash:") :
        return "c", "c: ours crashed"
    c = prog.get("cancel") or {}
    cancelled_diff = "no-cancel" in cured
    if feats <= {"body-order"} | {f for f in feats if f.startswith("flag:")}:
        return "a", RULE_NESTED
    c0 = prog.get("cancel") or {}
    diff_members = [m for m in tp[1] if tp[1][m] != to[1].get(m)]
    if c0 and "build" in c0["at"] and diff_members and cancelled_diff0(cured):
        after = c0["at"]["build"]["after"]
        def stage_of(m):
            return int(m[1:].split(".")[0]) if m.startswith("s") else -1
        if all(stage_of(m) > after and (to[1][m].endswith("*)") or "E999" in to[1][m]) for m in diff_members):
            return "a", RULE_ADDED
    why = pk7_bug(prog, tp, to, diff_members)
    if why:
        return "b", why
    if "no-viaCP" in cured or "plain-then" in cured:
        return "b", "b: a cancel after a then body returned a pending cancellable promise is lost: the stage still fulfils"
    if "no-race" in cured:
        pk_states = tp[1] if tp else {}
        if any(k.count(".b") and v.startswith("R(") and "*" not in v for k, v in pk_states.items()):
            return "b", "b: a rejected race input makes PK7 cancel every input's chain, so stages after a race that fulfilled are cancelled"
    combo = [k for k in cured if k.startswith("known:")]
    if combo and not any(k in cured for k in ("plain-then", "no-viaCP", "cleanup-ok", "no-race")):
        parts = combo[0][6:].split("+")
        if parts != ["cleanup-ok"] and any(p != "cleanup-ok" for p in parts):
            return "b", "b: several PromiseKit 7 bugs above at once (" + ", ".join(parts) + ")"
    if "cleanup-ok" in cured and not cancelled_diff:
        if c:
            return "a", "a: a cancel made before a rejected ensureThen clean-up chain wins: the stages after it are rejected with the cancel error, not the clean-up's (CancellableChains.md, clean-up)"
        return "d", "d: a rejected ensureThen clean-up: PK7 rejects the chain with its error, ours passes the original result on"
    if c and "inBody" in c["at"]:
        return "a", RULE_BODY
    if has(feats, "@after-cancel"):
        if has(feats, "recover@after-cancel"):
            return "a", RULE_RECOVER
        return "a", RULE_BODY
    if has(feats, "body-only-pk7:recover") or has(feats, "c.cancelAttempted:false->true", "end.cancelAttempted:false->true"):
        return "a", RULE_RECOVER
    if has(feats, "state:cleanup:Rc", "state:cleanup:R999"):
        return "a", RULE_CLEANUP
    kinds = [next(iter(s)) for s in prog["stages"]]
    if has(feats, "body-only-ours:tap"):
        return "a", "a: a tap runs with the cancel rejection unless its own chain's cancel started (after a race/when over a cancelled input, or a recover that rethrew it; migration guide, PK7)"
    only_ours = ours_only_bodies(tp, to)
    why = explain_members(prog, feats, tp, to)
    if why:
        return why
    why = unreached(prog, tp, to, diff_members, kinds)
    if why:
        return why[0], why
    recs = [i for i, k in enumerate(kinds) if k == "recover"]
    tgt = c.get("target", {})
    tstage = tgt["stage"]["_0"] if "stage" in tgt else (-1 if "root" in tgt else None)
    if only_ours and recs and tstage is not None and all(any(tstage < r < stage_no(m) for r in recs) for m in only_ours):
        return "c", "c: a cancel of a member before a settled recover does not reach the stages after the recover"
    if feats_states(feats) and all(".b" in m for m in diff_members) and ("race" in kinds or "when" in kinds):
        return "a", RULE_COMB
    if c and ("ensure" in kinds or "ensureThen" in kinds) and cancelled_diff:
        return "d?", "d?: cancel with an ensure/ensureThen in the chain: " + " ".join(sorted(feats))
    return "d", ("d: cancel-caused: " if cancelled_diff else "d: ") + " ".join(sorted(feats))


def classify_flags(prog, feats, tp, to):
    """Bodies and states agree; only isCancelled/cancelAttempted of `c` or of the end differ."""
    if all("isCancelled" in f for f in feats):
        return "a", RULE_ISCANCELLED
    kinds = [next(iter(s)) for s in prog["stages"]]
    pk_states = tp[1]
    rejected_input = any(".b" in k and v.startswith("R(") for k, v in pk_states.items())
    if has(feats, "cancelAttempted:true->false") and rejected_input and ("race" in kinds or "when" in kinds):
        return "b", "b: flags: a rejected race/when input makes PK7 cancel (or cross-cancel) the contexts, so cancelAttempted is true without a cancel of that chain"
    if has(feats, "cancelAttempted:false->true"):
        return "a", RULE_RECOVER + " (PK7's recover resets cancelAttempted)"
    if has(feats, "end.cancelAttempted:true->false") and any(k in kinds for k in ("recover", "race", "when", "ensure", "ensureThen")):
        return "a", "a: flags: " + RULE_BRANCH[3:] + " (so its cancelAttempted stays false)"
    return "d", "d: flags: " + " ".join(sorted(feats))
