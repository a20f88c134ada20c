"""peerdiff's classification of a differing program.

Each program is also run in a few counterfactual variants ("cures"): without the cancel, with every
`CancellablePromise.pending()` replaced by `Promise.pending().cancellize()`, with every ensureThen
clean-up already fulfilled, with each race replaced by a map. A cure that makes the two traces equal
names the cause; the trace features (see peerdiff.features) decide the rest. Before the last, broader
checks, explain_members() tries to explain every member whose final state differs, one by one, by a
rule checked on that member (and on what it carries on); a program it cannot explain whole falls
through to them. Classes:
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
RULE_BRANCH = "a: recover starts a branch (and race/when/ensure a context of their own): a cancel of the chain before it does not reach it"
RULE_HOLD = ("a: ensure/ensureThen hold a cancel back from later stages until the clean-up finished (so another "
             "race input can win meanwhile; CancellableChains.md, Clean-up before the stages after it)")
RULE_CLEANUP_CANCEL = "a: a cancel made before a rejected ensureThen clean-up chain wins: the stages after it are rejected with the cancel error, not the clean-up's (CancellableChains.md, clean-up)"
RULE_XCANCEL = ("a: race/when: the link goes from the result to its inputs only: an input whose chain a cancel reached "
                "(before the result was made, or a race's input rejected at once) cancels neither the result's chain nor "
                "the other inputs (CancellableChains.md, Combinators; PK7's appendCancelContext cancels the appending chain when the appended one "
                "had a cancel: CancelContext.swift:151)")
RULE_REACH = ("a: race/when: a cancel of the result's chain reaches its pending inputs and their chains, even after "
              "the result settled and a stage after it ran (CancellableChains.md, Combinators; PK7 drops the link when "
              "a stage after the result runs its body: CancellableThenable.swift, removeItems)")
RULE_OWN_ERROR = ("a: a cancel with an error of one's own rejects every pending member it reaches with that error, a "
                  "race's inputs too (CancellableChains.md, One context per chain; PK7's race first cancels its other "
                  "inputs with PMKError.cancelled: race.swift:110)")
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
    # the member the cancel was made on, as a stage number (at build time `end` is the stage just added)
    t = target_index(prog)
    if t is not None and after is not None and ("end" in c["target"] or "context" in c["target"]):
        t = min(t, after)
    combs = [i for i, k in enumerate(kinds) if k in ("when", "race")]

    def comb_between(lo, hi):  # a race/when result (a chain of its own) in the stages lo+1 ... hi
        return any(lo < k <= hi for k in combs)

    def body_before_cancel(m):  # m's own body ran (so m settled, every body being synchronous) before the cancel
        b = idx(lambda e: e.startswith(m + ".") and "(" in e)
        if b is not None and b < cancel_at:
            return True
        # a race over an input rejected at once settled when it was made, before a cancel made later
        n = stage_no(m)
        return m == f"s{n}" and n >= 0 and kinds[n] == "race" and after is not None and after >= n \
            and any(b.get("other", {}).get("_0", {}).get("error") is not None for b in prog["stages"][n]["race"]["branches"])

    # clean-ups that a cancel started (their body ran inside cancel()) and that finished only later
    held = []
    for e, k in enumerate(kinds):
        if k == "ensureThen" and "pending" in prog["stages"][e]["ensureThen"]["src"]:
            b = idx(lambda x, e=e: x == f"s{e}.ensureThen")
            ret = idx(lambda x: x == "cancel returned")
            if b is not None and ret is not None and cancel_at < b < ret:
                held.append(e)

    def pred(m):
        """The members whose result m (in ours) carries on: a stage's input member, a when's inputs."""
        import re
        x = re.match(r"^s(\d+)(\.b\d+|\.w)?$", m)
        if not x:
            return []
        n, tail = int(x.group(1)), x.group(2) or ""
        if tail == ".w" or (tail == "" and kinds[n] == "race"):
            return [k for k in so if k.startswith(f"s{n}.b")]
        if tail == "" and kinds[n] == "when":
            return [f"s{n}.w"]
        if tail.startswith(".b") and branch_kind(prog, m) == "other":
            return []
        k = n - 1
        while k >= 0 and kinds[k] == "catchOn":
            k -= 1
        return [f"s{k}" if k >= prog["cancellizeAt"] else "c"]

    def carries_on(m):
        """False if m fulfilled in ours although the member(s) it carries on were rejected (a lost
        rejection: no rule here explains that)."""
        if not so[m].startswith("F("):
            return True
        ins = [so.get(k, "") for k in pred(m)]
        if not ins:
            return True
        kind = kinds[stage_no(m)] if m.count(".") == 0 else ("map" if ".b" in m else "when")
        if kind == "race":
            return any(v.startswith("F(") for v in ins)
        return kind == "recover" or not any(v.startswith("R(") for v in ins)

    for m in diff:
        n, bk = stage_no(m), branch_kind(prog, m)
        x, y = sp[m], so[m]
        if m.endswith(".cleanup") and is_cancel_state(x) and not is_cancel_state(y):
            why[m] = RULE_CLEANUP
            continue
        if m == "p" or m.endswith(".cleanup") or (m != "c" and n < prog["cancellizeAt"]):
            continue  # plain promises and clean-up chains are never cancelled: nothing below explains them
        if ccl(y) and any(x == err and n >= e and not (t is not None and t < e and comb_between(t, e))
                          for e, err in cleanups):
            why[m] = RULE_CLEANUP_CANCEL
        elif ccl(y) and not is_cancel_state(x) and after is not None and before_built and n > after \
                and bk != "other" and t is not None and not comb_between(t, n - 1 if bk == "derived" else n) \
                and not any(kinds[r] == "recover" and prog["stages"][r]["recover"]["all"] for r in range(after + 1, n + 1)):
            why[m] = RULE_ADDED
        elif is_cancel_state(x) and not is_cancel_state(y) and carries_on(m) and any(
                ((n == i and bk != "derived") or n > i) and (t is None or t < i or body_before_cancel(m)) for i in xc):
            why[m] = RULE_XCANCEL
        elif ccl(y) and not is_cancel_state(x) and t is not None and any(
                t >= i and (n < i or (n == i and bk is not None)) for i in combs):
            why[m] = RULE_REACH
        elif is_cancel_state(x) and not is_cancel_state(y) and carries_on(m) and any(
                e < i and ccl(so.get(f"s{i}.b{j}", ""))
                and branch_kind(prog, f"s{i}.b{j}") == "derived" and (n > i or (n == i and bk != "derived"))
                for e in held for i in combs if kinds[i] == "race"
                for j in range(len(prog["stages"][i]["race"]["branches"]))):
            why[m] = RULE_HOLD
        elif c.get("custom") and ccl(y) and x == "R(cancelled*)" and bk is not None and kinds[n] == "race" \
                and t is not None and t >= n:
            why[m] = RULE_OWN_ERROR
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
            if m == "p" or m.endswith(".cleanup") or (m != "c" and stage_no(m) < prog["cancellizeAt"]):
                continue
            src = [k for k in why if stage_no(k) <= stage_no(m) and sp[k] == sp[m] and so[k] == so[m]]
            # or m passes on what its (explained) input member became on each side: the same error, or a value
            src += [k for k in pred(m) if k in why and carries_on(m) and sp[k] == sp[m] and sp[m].startswith("R(") and (
                so[k] == so[m] or (so[k].startswith("F(") and so[m].startswith("F(")))]
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
             RULE_CLEANUP: "clean-up chain not linked", RULE_HOLD: "clean-up holds the cancel back", RULE_OWN_ERROR: "own cancel error reaches race inputs", BUG_RECOVER: "PK7 bug: recover stage not cancellable"}
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
