/*
 * Carried stages: a checked model of a cancellable chain whose waiting stage is not a member of
 * the chain's source. The stage is *carried* by its parent's member: while the parent waits, a
 * cancel rejects the parent and the rejection reaches the stage; once the parent settled, the
 * parent's member is *handed down* to the stage (its target becomes the stage) before the stage's
 * body starts, so one member travels down a linear chain instead of one per stage.
 *
 * The objects:
 *   - P, the parent: a pending promise with its lock, a member M waiting in the source S, and one
 *     carried stage C (registered on P as a callback, with no member of its own).
 *   - C, the stage: a pending promise with its lock; its body runs once it has P's value.
 *   - M, the member: linked in S's list (the list holds it) and a target (P, then C).
 *   - S, the source: lock and status (active / cancelled / closed).
 *   - handoff: P's reference to C from P's settle until C holds M (or C settled): what the cancel
 *     follows from a settled target to the stage it carries.
 * The threads:
 *   - the settler fulfils P or rejects it with an error, then delivers P's result to C: C takes M
 *     over (under S's lock, only while M is linked), runs its body if P was fulfilled, settles
 *     claiming the cancel, and leaves S;
 *   - the canceller cancels S (at any moment, or never): it flips S and takes the list under S's
 *     lock, rejects M's target, then rejects, down the handoffs, every stage a settled target
 *     carries (the *sweep*); a parent it rejected itself is delivered to C now or, when the cancel
 *     runs inside a delivery on that thread, after the cancel returned (queued);
 *   - the closer closes S (its context went away) at any moment, or never.
 *
 * Checked, exhaustively (locks as blocking test-and-set):
 *   - a cancel that flipped S reaches every promise of the chain before it returns: neither P nor
 *     C is pending then;
 *   - no lost cancel: a promise pending when the cancel flipped S ends rejected with the cancel
 *     (not with a value or another error that settled it later);
 *   - a body runs only while a cancel can reach its stage (M waits in S with C as its target), or
 *     when no cancel can come any more (S closed);
 *   - no double settle; both promises end settled; M ends out of the list; no deadlock (spin's
 *     invalid end states).
 *
 * Configurations (one -D each, see run.sh): none is the protocol as the code will run it.
 *   NO_HANDOFF  P's settle makes M leave S at once, and C joins S with a member of its own when it
 *               receives P's result (the simple way): must fail, a cancel between the two misses C.
 *   NO_SWEEP    the cancel rejects only M's target; C hears of it through P's delivery, which is
 *               queued when the cancel runs inside a delivery: must fail for the same reason.
 */

#define ACTIVE 0
#define CANCELLED 1
#define CLOSED 2

#define PENDING 0
#define VALUE 1
#define ERROR 2
#define CANCEL 3

#define TP 0 /* M's target: P */
#define TC 1 /* M's target: C */

bit pLock; bit cLock; bit sLock;
byte status = ACTIVE;
byte pResult = PENDING;
byte cResult = PENDING;
byte settles;            /* results stored, both promises */
bool linked = true;      /* M waits in S's list */
byte target = TP;        /* M's target */
bool pMember = true;     /* P refers to M */
bool cMember;            /* C refers to its member (M; its own one with NO_HANDOFF) */
bool cLinked;            /* NO_HANDOFF: C's own member waits in S's list */
bool handoff;            /* P's reference to C, from P's settle until C holds M or settled */
bool pPendingAtCancel;   /* ghost: P was pending when the cancel flipped S */
bool cPendingAtCancel;   /* ghost: C was pending when the cancel flipped S */

inline lock(l) { atomic { l == 0 -> l = 1 } }
inline unlock(l) { l = 0 }

/* Settle P with `r` under P's lock, claiming the cancel (a cancelled source's error wins while P
   refers to its member). P keeps its member and refers to the stage it carries (the handoff);
   NO_HANDOFF: the member leaves at once. */
inline settleP(r, did) {
  lock(pLock);
  d_step {
    if
    :: pResult == PENDING ->
      if :: pMember && status == CANCELLED -> pResult = CANCEL :: else -> pResult = r fi;
      settles++;
      did = true;
      handoff = true
    :: else -> did = false
    fi
  };
#ifdef NO_HANDOFF
  if
  :: did && pMember ->
    pMember = false;
    lock(sLock);
    if :: status == ACTIVE && linked -> linked = false :: else -> skip fi;
    unlock(sLock)
  :: else -> skip
  fi;
#endif
  unlock(pLock)
}

/* Settle C with `r` under C's lock, claiming the cancel through its member, and leave S; then the
   handoff is over. */
inline settleC(r, did) {
  lock(cLock);
  d_step {
    if
    :: cResult == PENDING ->
      if :: cMember && status == CANCELLED -> cResult = CANCEL :: else -> cResult = r fi;
      settles++;
      did = true
    :: else -> did = false
    fi
  };
  if
  :: cMember ->
    cMember = false;
    lock(sLock);
    if
    :: status == ACTIVE ->
#ifdef NO_HANDOFF
      cLinked = false
#else
      linked = false
#endif
    :: else -> skip
    fi;
    unlock(sLock)
  :: else -> skip
  fi;
  unlock(cLock);
  lock(pLock); handoff = false; unlock(pLock)
}

/* C receives P's result `r` (from the thread that settled P). */
inline receive(r) {
  ok = false;
#ifdef NO_HANDOFF
  /* C joins with a member of its own; not once S ended */
  lock(cLock);
  lock(sLock);
  if :: status == ACTIVE && cResult == PENDING -> ok = true; cLinked = true; cMember = true :: else -> skip fi;
  unlock(sLock);
  unlock(cLock);
#else
  /* The hand-over: M's target becomes C, only while M waits in S (a cancel or close that took it
     uses the target it found), and C refers to M. Lock order: a promise's lock, then the
     source's. P then forgets M; it keeps the handoff until C settled if the hand-over failed. */
  lock(cLock);
  lock(sLock);
  if :: status == ACTIVE && linked && cResult == PENDING -> target = TC; ok = true; cMember = true :: else -> skip fi;
  unlock(sLock);
  unlock(cLock);
  lock(pLock);
  pMember = false;
  if :: ok -> handoff = false :: else -> skip fi;
  unlock(pLock);
#endif
  if
  :: !ok && status == CANCELLED ->
    /* the hand-over found S cancelled: the cancel's error, as C's own claim would have it */
    settleC(CANCEL, did)
  :: r == VALUE && (ok || status != CANCELLED) ->
    /* the body's check just before it starts (a lock-free read of the source's status) */
    if
    :: atomic {
         status != CANCELLED && cResult == PENDING ->
         /* a body runs only while a cancel can reach its stage, or when none can come */
         assert(status == CLOSED || (linked && target == TC) || cLinked)
       };
       settleC(VALUE, did)
    :: else -> settleC(CANCEL, did)
    fi
  :: r != VALUE && (ok || status != CANCELLED) -> settleC(r, did)
  fi
}

proctype Settler() {
  bool did, ok;
  if
  :: settleP(VALUE, did)
  :: settleP(ERROR, did)
  fi;
  if :: did -> receive(pResult) :: else -> skip fi
}

proctype Canceller() {
  bool flipped, tookM, tookC, did, settledP, carried, ok;
  byte t;
  if
  :: skip
  :: lock(sLock);
     if
     :: status == ACTIVE ->
       status = CANCELLED; flipped = true;
       pPendingAtCancel = (pResult == PENDING); cPendingAtCancel = (cResult == PENDING);
       tookM = linked; linked = false; tookC = cLinked; cLinked = false; t = target
     :: else -> skip
     fi;
     unlock(sLock);
     /* each member's action: reject its target */
     if
     :: tookM && t == TP -> settleP(CANCEL, did); settledP = did
     :: tookM && t == TC -> settleC(CANCEL, did)
     :: else -> skip
     fi;
     if :: tookC -> settleC(CANCEL, did) :: else -> skip fi;
#ifndef NO_SWEEP
     /* the sweep: the stage that a target this cancel reached still carries */
     if
     :: tookM ->
       lock(pLock); carried = handoff; unlock(pLock);
       if :: carried -> settleC(CANCEL, did) :: else -> skip fi
     :: else -> skip
     fi;
#endif
     /* P's delivery, if this thread settled P: in place, or queued behind the delivery this
        cancel runs inside, until after it returned */
     if :: settledP -> receive(CANCEL); settledP = false :: settledP -> skip :: else -> skip fi;
     if :: flipped -> assert(pResult != PENDING && cResult != PENDING) :: else -> skip fi;
     if :: settledP -> receive(CANCEL) :: else -> skip fi
  fi
}

/* The context went away: S closes, and its member's target forgets it. */
proctype Closer() {
  bool tookM, tookC;
  byte t;
  if
  :: skip
  :: lock(sLock);
     if
     :: status == ACTIVE ->
       status = CLOSED; tookM = linked; linked = false; tookC = cLinked; cLinked = false; t = target
     :: else -> skip
     fi;
     unlock(sLock);
     if
     :: tookM && t == TP -> lock(pLock); pMember = false; unlock(pLock)
     :: (tookM && t == TC) || tookC -> lock(cLock); cMember = false; unlock(cLock)
     :: else -> skip
     fi
  fi
}

init {
  atomic {
    run Settler();
    run Canceller();
    run Closer()
  }
  (_nr_pr == 1);
  assert(settles == 2);
  assert(pResult != PENDING && cResult != PENDING);
  assert(!linked && !cLinked);
  /* no lost cancel: a promise pending when the cancel flipped S ends rejected with the cancel */
  assert(!pPendingAtCancel || pResult == CANCEL);
  assert(!cPendingAtCancel || cResult == CANCEL)
}
