/*
 * Chain membership: a checked model of how a pending promise of a cancellable chain waits in its
 * chain's cancel source, and of everything that can happen to it at the same time.
 *
 * The objects (docs/architecture.md, "The checked model of chain membership", says which code each
 * step mirrors):
 *   - P, one pending promise with its lock (Promise.swift). Its `member` field refers to its member
 *     WITHOUT retaining it (`UnretainedMember`).
 *   - members 0 and 1 (CancelMember.swift), each with a reference count, a `hasLeft` flag and a
 *     life cycle alive -> deinit running -> freed. Member 0 waits in source 0 from the start
 *     (`joinAsUnsharedMember`); member 1 is only used by the attach configuration.
 *   - sources 0 and 1 (CancelStorage.swift): lock, status (active/cancelled/closed), the list of
 *     waiting members (which holds a reference to each), and a reference count (the context's
 *     and the member's references).
 *   - source 0's context (CancelContext.swift), held by two users: one may cancel it and then lets
 *     go, the other only lets go. The last one to let go runs the context's deinit, which
 *     releases the source (`CancelStorage.release()`): closed at once if no member waits, else
 *     kept open for a parent's cancel and closed by the settle of the last member that leaves it
 *     (`CancelMember.closeSourceIfDrained()`). (A root context closes its source outright, as the
 *     released source does here when its member already left.)
 *   - a parent of source 0 (the chain before a recover or a clean-up), whose cancel reaches it
 *     through a link at any time, the context kept or not; the link holds a reference to it.
 * The threads: the settler (a resolver fulfilling P, or a stage settling it), the two users of the
 * context, the parent cancelling through its link, and (configuration ATTACH) a thread making P a
 * member of a second context (`CancelContext.adopt`, P already being a member of the first: the
 * same promise wrapped twice).
 *
 * Checked (every interleaving of the steps, exhaustively; locks as blocking test-and-set):
 *   - no retain of a member whose reference count reached zero (its deinit is running: Swift then
 *     reports "deallocated with non-zero retain count"), and no access to a freed member or source;
 *   - no lost cancel: a cancel that flipped the source while P was pending and P's member was
 *     waiting in it leaves P rejected with the cancel;
 *   - no double settle; the cancel is recorded (`hasCancelledMember`) whenever it rejected P;
 *   - no deadlock (spin's invalid end states: a thread blocked on a lock for ever, including a
 *     thread taking a lock it holds, as a member's deinit run inside the promise's lock would);
 *   - no cancel of the parent lost behind a context that went away: the parent's cancel never finds
 *     source 0 closed while P is still pending (issue 26, "D1");
 *   - the source always ends (a released source closes once its member left).
 *
 * Configurations (one -D each, see run.sh): none is the code as it is.
 *   MAIN_BEFORE_28  the code before issue #28: a member's deinit forgets it in its promise
 *                   (`.released`), and the settle retains the member it takes under the promise's
 *                   lock: a close freeing the member at that moment is retained from its deinit.
 *                   Must fail (the open question of the 8th performance round, settled).
 *   WITHDRAWN       the withdrawn unretained settle (commit ec1fe57): the settle uses its member
 *                   unretained, and leaving retains it whenever it is not in the list any more,
 *                   closed source included. Must fail.
 *   WITHDRAWN_CLOSED_FIX  the same with leaving retaining nothing once the source closed (commit
 *                   71a5781), as it stood when it was withdrawn.
 *   RETAINED_SETTLE the code from issue #28 until the settle stopped retaining its member: the
 *                   settle retains the member it takes under the promise's lock and releases it
 *                   after unlocking. Passes; the code now leaves without it (nothing of the
 *                   member's is used after leaving, and its deinit no longer takes the promise's
 *                   lock, so the release it guarded against cannot happen in the section).
 *   STAGE_CHECK_FIRST  the settler checks the source before taking the promise's lock, as stages
 *                   did before issue #28 (`ChainState.settle`, `settleMember`): must fail (a cancel
 *                   that flips in between is lost).
 *   WITHDRAWN_CLOSED_FIX passes: the model finds no fault in it (see run.sh).
 *   ATTACH          adds the attaching thread (with its race against the earlier member's close).
 *   ROOT            a root context (`CancelContext()`, a chain's first): its deinit closes its
 *                   source even while the member waits (nothing can cancel it any more), and no
 *                   parent cancels it. The configurations before it imply it.
 *   CLOSE_ON_DROP   a context made from another whose deinit closes its source even while the
 *                   member waits, as before issue 26's "D1": must fail (the parent's cancel is
 *                   lost).
 */

#define ACTIVE 0
#define CANCELLED 1
#define CLOSED 2

#define ALIVE 0
#define DEINIT 1
#define FREED 2

#define PENDING 0
#define VALUE 1
#define CANCEL 2

#define NONE 2 /* no member */

#if defined(MAIN_BEFORE_28) || defined(WITHDRAWN) || defined(WITHDRAWN_CLOSED_FIX)
#define FORGET_IN_DEINIT 1
/* they predate released sources: the context is a root one */
#define ROOT 1
#endif
#if defined(ROOT) || defined(CLOSE_ON_DROP)
#define CLOSES_ON_DROP 1
#endif

/* ---- state ---- */
bit pLock;
byte pMember = NONE;    /* the promise's unretained reference to a member */
byte pResult = PENDING;
byte settles;           /* how many settles stored a result */

bit sLock[2];
byte status[2];         /* ACTIVE at start */
byte sRC[2];            /* references to each source */
byte sState[2];         /* ALIVE / FREED */
bool recorded[2];       /* the group's "the cancel rejected a member" */

bool linked[2];         /* member i waits in its source's list */
byte mRC[2];            /* references to member i */
byte mState[2];         /* ALIVE / DEINIT / FREED */
bool hasLeft[2];

byte ctxRC = 2;         /* the two users of context 0 */

bool released[2];      /* the context let go of source i while a member waited (release()) */
bool lostUpstream;      /* ghost: the parent's cancel found source 0 closed while P was pending */

bool cancelWhileWaiting; /* ghost: the cancel flipped source 0 while P was pending and member 0
                            waited in it */

/* member i belongs to source i */

inline lock(l) { atomic { l == 0 -> l = 1 } }
inline unlock(l) { l = 0 }

inline touchMember(i) { assert(mState[i] != FREED) }
inline touchSource(i) { assert(sState[i] == ALIVE) }

/* A retain: never of a member whose count reached zero. */
inline retainMember(i) {
  d_step { assert(mState[i] == ALIVE && mRC[i] > 0); mRC[i]++ }
}

inline releaseSource(i) {
  d_step { assert(sState[i] == ALIVE && sRC[i] > 0); sRC[i]--; if :: sRC[i] == 0 -> sState[i] = FREED :: else -> skip fi }
}

/* A release; the thread whose release was the last runs the member's deinit. */
inline releaseMember(i, last) {
  d_step {
    assert(mState[i] == ALIVE && mRC[i] > 0);
    mRC[i]--;
    last = (mRC[i] == 0);
    if :: last -> mState[i] = DEINIT :: else -> skip fi
  }
  if
  :: last ->
#ifdef FORGET_IN_DEINIT
    /* action(.released): the promise forgets the member (Promise.forgetMember), under its lock */
    lock(pLock);
    if :: pMember == i -> pMember = NONE :: else -> skip fi;
    unlock(pLock);
#endif
    /* Swift's check at the end of deinit: nobody retained it meanwhile */
    d_step { assert(mRC[i] == 0); mState[i] = FREED };
    releaseSource(i) /* the member's reference to its source */
  :: else -> skip
  fi
}

/* CancelMember.leaveSource() (CancelStorage.unlinkMember(_:), then the mark) as the promise's
   settle calls it, under the promise's lock.
   `handed` is set when the caller gets a reference back to release after unlocking. */
inline removeMember(i, handed) {
  touchMember(i);
  touchSource(i);
  if
  :: status[i] == ACTIVE ->        /* !isCompleted */
    lock(sLock[i]);
    if
    :: status[i] == ACTIVE && linked[i] ->
      linked[i] = false; handed = true; /* the list's reference */
      /* the last member of a released source: the leaving thread closes it after unlocking */
      if :: released[i] -> drained = true :: else -> skip fi
    :: else -> skip
    fi;
    unlock(sLock[i])
  :: else -> skip
  fi;
  if
  :: handed -> skip
  :: else ->
    touchSource(i);
    if
    :: status[i] == CANCELLED ->
#if defined(WITHDRAWN) || defined(WITHDRAWN_CLOSED_FIX)
      retainMember(i); handed = true;
#endif
      touchMember(i);
      hasLeft[i] = true /* the last access to the member and its source */
    :: status[i] == CLOSED ->
#ifdef WITHDRAWN
      retainMember(i); handed = true;
#endif
      skip
    :: status[i] == ACTIVE -> skip
    fi
  fi
}

/* Promise.settleLeavingDelivery: `claim` is the resolver's cancelWins (the chain's cancel error
   wins once its cancel started). Records whether it settled into `did`. The member is used under
   the promise's lock without a reference of its own (RETAINED_SETTLE: with one, released after
   unlocking, as the code did before); leaving is the last access to it. */
inline settlePromise(result, claim, did) {
  m = NONE; held = false; handed = false; drained = false; r = result;
  lock(pLock);
  if
  :: pMember != NONE ->
    m = pMember;
    pMember = NONE;
#if defined(RETAINED_SETTLE) || defined(MAIN_BEFORE_28)
    retainMember(m); held = true;
#endif
    skip
  :: else -> skip
  fi;
  /* One step: the claim's lock-free read of the status and the store of the result. Under the
     promise's lock nothing else reads or writes the result; only the model's ghost observer does
     (it takes the result at the moment of this read as the moment P settled). */
  d_step {
    if
    :: pResult == PENDING ->
      if
      :: claim && m != NONE ->
        assert(mState[m] != FREED && sState[m] == ALIVE);
        if :: status[m] == CANCELLED -> r = CANCEL; recorded[m] = true :: else -> skip fi
      :: else -> skip
      fi;
      pResult = r;
      settles++;
      did = true
    :: else -> did = false
    fi
  };
  if :: m != NONE -> removeMember(m, handed) :: else -> skip fi;
  unlock(pLock);
  /* after unlocking, with the list's reference still held: the drained source closes */
  if :: drained -> touchMember(m); closeDrained(m) :: else -> skip fi;
  /* released after unlocking: the list's (or leaving's) reference, then the section's own */
  if :: handed -> releaseMember(m, last) :: else -> skip fi;
  if :: held -> releaseMember(m, last) :: else -> skip fi
}

/* CancelStorage.close(.drained): a released source whose last member left closes (no member is
   left to tell). */
inline closeDrained(i) {
  touchSource(i);
  lock(sLock[i]);
  if :: status[i] == ACTIVE && released[i] && !linked[i] -> status[i] = CLOSED :: else -> skip fi;
  unlock(sLock[i])
}

/* CancelContext.deinit of a context made from another: CancelStorage.release(), closing at once
   if the member does not wait any more; CLOSE_ON_DROP closes in any case. */
inline releaseSource0() {
#ifdef CLOSES_ON_DROP
  closeSource(0)
#else
  touchSource(0);
  stays = false;
  lock(sLock[0]);
  if :: status[0] == ACTIVE && linked[0] -> released[0] = true; stays = true :: else -> skip fi;
  unlock(sLock[0]);
  if :: !stays -> closeSource(0) :: else -> skip fi
#endif
}

/* Promise.actAsMember with .cancelled: the chain's reject (ChainState.reject / UnretainedMember). */
inline rejectByCancel(i) {
  did = false;
  settlePromise(CANCEL, false, did);
  if :: did -> recorded[i] = true :: else -> skip fi
}

/* CancelStorage.close() of source i and its members (the context's deinit). */
inline closeSource(i) {
  taken = false;
  touchSource(i);
  if
  :: status[i] == ACTIVE ->
    lock(sLock[i]);
    if
    :: status[i] == ACTIVE -> status[i] = CLOSED; taken = linked[i]; linked[i] = false
    :: else -> skip
    fi;
    unlock(sLock[i])
  :: else -> skip
  fi;
  if
  :: taken ->
#ifndef FORGET_IN_DEINIT
    /* action(.closed) before the release (CancelStorage.close): the promise forgets its member
       while the closing thread still holds it */
    touchMember(i);
    lock(pLock);
    if :: pMember == i -> pMember = NONE :: else -> skip fi;
    unlock(pLock);
#endif
    releaseMember(i, last)
  :: else -> skip
  fi
}

/* CancelStorage.cancel(reason:) of source 0 and its members (CancelStorage+Propagation);
   `viaLink`: the parent's cancel through its link, which records whether it found the source
   closed while P was pending. */
inline cancelSource(viaLink) {
  taken = false;
  touchSource(0);
  if
  :: status[0] == ACTIVE ->
    lock(sLock[0]);
    if
    :: status[0] == ACTIVE ->
      status[0] = CANCELLED;
      taken = linked[0];
      linked[0] = false;
      cancelWhileWaiting = (taken && pResult == PENDING)
    :: status[0] == CLOSED && viaLink -> lostUpstream = lostUpstream || pResult == PENDING
    :: else -> skip
    fi;
    unlock(sLock[0])
  :: status[0] == CLOSED && viaLink -> lostUpstream = lostUpstream || pResult == PENDING
  :: else -> skip
  fi;
  if
  :: taken ->
    touchMember(0);
    if :: !hasLeft[0] -> rejectByCancel(0) :: else -> skip fi;
    releaseMember(0, last)
  :: else -> skip
  fi
}

/* A user of context 0 lets go; the last one runs its deinit (release, then its source reference). */
inline dropContext() {
  d_step { ctxRC--; lastUser = (ctxRC == 0) };
  if
  :: lastUser -> releaseSource0(); releaseSource(0)
  :: else -> skip
  fi
}

proctype Canceller() {
  /* the locals the inlines use */
  bool did, held, handed, last, taken, lastUser, drained, stays;
  byte m, r;
  if
  :: cancelSource(false)
  :: skip
  fi;
  dropContext()
}

#ifndef ROOT
/* The parent whose cancel reaches source 0 through a link (the chain before a recover or a
   clean-up): cancels at any moment, or never, then its link lets go of the source. */
proctype Upstream() {
  /* the locals the inlines use */
  bool did, held, handed, last, taken, lastUser, drained, stays;
  byte m, r;
  if
  :: cancelSource(true)
  :: skip
  fi;
  releaseSource(0)
}
#endif

proctype Dropper() {
  /* the locals the inlines use */
  bool did, held, handed, last, taken, lastUser, drained, stays;
  byte m, r;
  dropContext()
}

/* The resolver fulfilling P (Resolver -> Promise.resolve), or a stage settling it. */
proctype Settler() {
  /* the locals the inlines use */
  bool did, held, handed, last, taken, lastUser, drained, stays;
  byte m, r;
#ifdef STAGE_CHECK_FIRST
  /* ChainState.settle / settleMember before #28: check, then settle without the claim */
  if
  :: status[0] == CANCELLED -> rejectByCancel(0)
  :: else -> settlePromise(VALUE, false, did)
  fi
#else
  settlePromise(VALUE, true, did)
#endif
}

#ifdef ATTACH
/* CancelContext.adopt: member 1 joins source 1 (a new context nobody else holds yet), then the
   promise keeps it (Promise.attachMember), letting the earlier member 0 leave when it settles. */
proctype Attacher() {
  bool added, settled, earlier;
  /* the locals the inlines use */
  bool did, held, handed, last, taken, lastUser, drained, stays;
  byte m, r;
  /* addMember: a new source is active */
  lock(sLock[1]);
  linked[1] = true; mRC[1]++; added = true;
  unlock(sLock[1]);
  lock(pLock);
  if
  :: pResult != PENDING -> settled = true
  :: else ->
#ifdef FORGET_IN_DEINIT
    /* retainMemberUnlessClosed, under the earlier member's source's lock */
    if
    :: pMember == 0 ->
      touchMember(0); touchSource(0);
      lock(sLock[0]);
      if :: status[0] != CLOSED -> retainMember(0); earlier = true :: else -> skip fi;
      unlock(sLock[0])
    :: else -> skip
    fi;
#else
    /* the field is set only while its member is alive: retained directly */
    if :: pMember == 0 -> retainMember(0); earlier = true :: else -> skip fi;
#endif
    pMember = 1
  fi;
  unlock(pLock);
  if
  :: settled -> removeMember(1, handed); if :: handed -> releaseMember(1, last) :: else -> skip fi
  :: else -> skip
  fi;
  releaseMember(1, last); /* the adopting thread's own reference */
  if
  :: earlier ->
    /* a callback of the promise: the earlier member leaves when the promise settles (here: once
       the settler is done, the callback run; its reference released after) */
    (pResult != PENDING);
    handed = false; drained = false;
    removeMember(0, handed);
    if :: drained -> touchMember(0); closeDrained(0) :: else -> skip fi;
    if :: handed -> releaseMember(0, last) :: else -> skip fi;
    releaseMember(0, last)
  :: else -> skip
  fi
}
#endif

init {
  atomic {
    /* member 0 waits in source 0 (joinAsUnsharedMember): the list holds it; the promise refers to
       it unretained. Source 0 is held by its context, by member 0 and (but for ROOT) by its
     parent's link. */
    status[0] = ACTIVE; linked[0] = true; mRC[0] = 1; pMember = 0;
#ifdef ROOT
    sRC[0] = 2;
#else
    sRC[0] = 3;
    run Upstream();
#endif
#ifdef ATTACH
    /* source 1: a new context (keeping it) and member 1 (made by the attaching thread) */
    status[1] = ACTIVE; sRC[1] = 2; mRC[1] = 1;
    run Attacher();
#else
    sState[1] = FREED; mState[1] = FREED;
#endif
    run Settler();
    run Canceller();
    run Dropper()
  }
  /* every thread done */
  (_nr_pr == 1);
  assert(settles <= 1);
  assert(pResult != PENDING);
#ifndef ATTACH
  /* No lost cancel. (Not with ATTACH: a promise made a member of a second chain claims only that
     chain's cancel when it settles, so a cancel of the first chain that flipped before the settle
     but had not reached the promise yet loses to it, as a cancel that flips after the settle
     does. Not a guarantee the code gives: docs/architecture.md.) */
  assert(!cancelWhileWaiting || pResult == CANCEL);
#endif
  /* no cancel of the parent lost behind the context going away (issue 26, D1) */
  assert(!lostUpstream);
  /* the source ended: a released source closed once its member left */
  assert(status[0] != ACTIVE);
  /* a cancel that rejected the promise is recorded */
  assert(pResult != CANCEL || recorded[0]);
  /* everything freed once nothing holds it (the settler's, users' and members' references) */
  assert(mState[0] == FREED && sState[0] == FREED);
#ifdef ATTACH
  assert(mState[1] == FREED)
#endif
}
