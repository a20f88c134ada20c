/*
 * Carried stages: a checked model of a cancellable chain whose waiting stages are not members of
 * the chain's source. Promise 0 (the root) waits in the source with its member M; stage 1 waits on
 * promise 0 and stage 2 on stage 1, neither with a member of its own: each is *carried* by the
 * promise it waits on. The protocol:
 *   - a promise that carries a stage keeps its member when it settles, and refers to the stage
 *     (the *handoff*) until the stage holds the member or settled;
 *   - a stage receiving its parent's result takes the member over before its body starts: M's
 *     target becomes the stage, under the source's lock, only while M waits in the source and its
 *     target is still the parent;
 *   - a cancel rejects M's target, then follows the handoffs down from it and rejects each stage
 *     found (the *sweep*), all before it returns;
 *   - a promise that carries nothing leaves the source when it settles (so the member leaves with
 *     the last stage of the chain);
 *   - a handoff ends only when the stage took the member over: once the hand-over failed (the
 *     source ended), it stays, so that a sweep passes through a settled stage to the ones after.
 * One member thus travels down a linear chain, and a chain built while its root is pending (a
 * stage carried by a stage that is carried itself) is reached by one cancel.
 *
 * The threads:
 *   - the settler fulfils the root or rejects it with an error, then delivers down the chain for as
 *     long as it settles each next stage (a stage's body runs when its parent was fulfilled);
 *   - the canceller cancels the source (at any moment, or never): flips it and takes the list
 *     under the source's lock, rejects M's target, sweeps; it then delivers the results of the
 *     promises it settled, in place or, when the cancel runs inside a delivery on that thread,
 *     queued until after it returned;
 *   - the closer closes the source (its context went away) at any moment, or never: M's target
 *     forgets M.
 *
 * Checked, exhaustively (locks as blocking test-and-set):
 *   - a cancel that flipped the source leaves no promise of the chain pending when it returns;
 *   - no lost cancel: a promise pending when the cancel flipped the source ends rejected with it;
 *   - a body runs only while a cancel can reach its stage (M waits with the stage as its target),
 *     or when none can come any more (the source closed);
 *   - every promise settles once; M is out of the list at the end; no deadlock (spin's invalid end
 *     states).
 *
 * Configurations (one -D each, see run.sh): none is the protocol.
 *   NO_HANDOFF  the simple way: a promise's member leaves when it settles, and a stage joins with a
 *               member of its own when it receives a value. Must fail: a cancel between the two
 *               misses the stage.
 *   NO_SWEEP    the cancel rejects only M's target, and the stages hear of it through their
 *               parent's delivery, which is queued when the cancel runs inside a delivery. Must
 *               fail for the same reason.
 *   FORGET_ON_SETTLE  a parent forgets its handoff as soon as the stage settled. Must fail: a sweep
 *               stops at a stage settled by another thread while the stage it carries is still
 *               pending (the first form of this model, found by the checker).
 */

#define N 3 /* promise 0 (the root, a member) and the stages 1 and 2 */

#define ACTIVE 0
#define CANCELLED 1
#define CLOSED 2

#define PENDING 0
#define VALUE 1
#define ERROR 2
#define CANCEL 3

bit lk[N];               /* each promise's lock */
bit sLock;
byte status = ACTIVE;
byte result[N];          /* PENDING at start */
byte settles;            /* results stored, every promise */
bool linked = true;      /* M waits in the source's list */
byte target;             /* M's target: promise 0 at start */
bool mem[N];             /* promise i refers to its member (M; its own one with NO_HANDOFF) */
bool own[N];             /* NO_HANDOFF: stage i's own member waits in the list (under sLock) */
bool handoff[N];         /* promise i settled and still refers to the stage i + 1 it carries */
bool pendingAtCancel[N]; /* ghost: promise i was pending when the cancel flipped the source */

inline lock(l) { atomic { l == 0 -> l = 1 } }
inline unlock(l) { l = 0 }

/* The settle of promise x with r, under its lock: claims the cancel through its member (a
   cancelled source's error wins), refers to the stage it carries, and keeps its member for that
   stage (NO_HANDOFF, or carrying nothing: leaves). */
inline settle(x, r, did) {
  lock(lk[x]);
  d_step {
    if
    :: result[x] == PENDING ->
      if :: mem[x] && status == CANCELLED -> result[x] = CANCEL :: else -> result[x] = r fi;
      settles++;
      did = true;
      if :: x < N - 1 -> handoff[x] = true :: else -> skip fi
    :: else -> did = false
    fi
  };
#ifdef NO_HANDOFF
  if
  :: mem[x] ->
#else
  if
  :: mem[x] && x == N - 1 ->
#endif
    mem[x] = false;
    lock(sLock);
    if
    :: status == ACTIVE ->
#ifdef NO_HANDOFF
      if :: x == 0 -> linked = false :: else -> own[x] = false fi
#else
      linked = false
#endif
    :: else -> skip
    fi;
    unlock(sLock)
  :: else -> skip
  fi;
  unlock(lk[x]);
#ifdef FORGET_ON_SETTLE
  if :: x > 0 -> lock(lk[x - 1]); handoff[x - 1] = false; unlock(lk[x - 1]) :: else -> skip fi;
#endif
  skip
}

/* Stage x receives its parent's result r, on the thread that settled the parent. */
inline receive(x, r, did) {
  ok = false;
#ifdef NO_HANDOFF
  /* joins with a member of its own; not once the source ended */
  lock(lk[x]);
  lock(sLock);
  if :: status == ACTIVE && result[x] == PENDING -> ok = true; own[x] = true; mem[x] = true :: else -> skip fi;
  unlock(sLock);
  unlock(lk[x]);
#else
  /* the hand-over (a promise's lock, then the source's); then the parent forgets M, and its
     handoff once the stage holds M. A failed hand-over leaves the handoff: a sweep may still have
     to pass through it to stages further down (FORGET_ON_SETTLE) */
  lock(lk[x]);
  lock(sLock);
  if
  :: status == ACTIVE && linked && target == x - 1 && result[x] == PENDING -> target = x; ok = true; mem[x] = true
  :: else -> skip
  fi;
  unlock(sLock);
  unlock(lk[x]);
  lock(lk[x - 1]);
  mem[x - 1] = false;
  if :: ok -> handoff[x - 1] = false :: else -> skip fi;
  unlock(lk[x - 1]);
#endif
  if
  :: !ok && status == CANCELLED ->
    /* the hand-over found the source cancelled: the cancel's error, as a claim would have it */
    settle(x, CANCEL, did)
  :: r == VALUE && (ok || status != CANCELLED) ->
    if
    :: atomic {
         /* the body's check just before it starts (a lock-free read of the status) */
         status != CANCELLED && result[x] == PENDING ->
         assert(status == CLOSED || (linked && target == x) || own[x])
       };
       settle(x, VALUE, did)
    :: else -> settle(x, CANCEL, did)
    fi
  :: r != VALUE && (ok || status != CANCELLED) -> settle(x, r, did)
  fi
}

proctype Settler() {
  bool did, ok;
  byte x;
  if
  :: settle(0, VALUE, did)
  :: settle(0, ERROR, did)
  fi;
  do
  :: did && x < N - 1 -> x++; receive(x, result[x - 1], did)
  :: else -> break
  od
}

proctype Canceller() {
  bool flipped, tookM, did, carried, ok, deferred;
  byte t, x, mine, tookOwn; /* as bits: the promises this thread settled, the own members it took */
  if
  :: skip
  :: lock(sLock);
     if
     :: status == ACTIVE ->
       status = CANCELLED; flipped = true;
       tookM = linked; linked = false; t = target;
       x = 1;
       do
       :: x < N -> if :: own[x] -> tookOwn = tookOwn | (1 << x); own[x] = false :: else -> skip fi; x++
       :: else -> break
       od;
       x = 0;
       do
       :: x < N -> pendingAtCancel[x] = (result[x] == PENDING); x++
       :: else -> break
       od
     :: else -> skip
     fi;
     unlock(sLock);
#ifdef NO_HANDOFF
     /* each member of the list, oldest first: the root's, then the stages' own ones */
     x = 0;
     do
     :: x < N ->
       if
       :: (x == 0 && tookM) || (tookOwn & (1 << x)) ->
         settle(x, CANCEL, did); if :: did -> mine = mine | (1 << x) :: else -> skip fi
       :: else -> skip
       fi;
       x++
     :: else -> break
     od;
     t = 0;
#else
     if
     :: tookM -> settle(t, CANCEL, did); if :: did -> mine = mine | (1 << t) :: else -> skip fi
     :: else -> skip
     fi;
#endif
#ifndef NO_SWEEP
     /* the sweep: down the handoffs from the target */
     if
     :: tookM ->
       x = t;
       do
       :: x < N - 1 ->
         lock(lk[x]); carried = handoff[x]; unlock(lk[x]);
         if
         :: carried -> settle(x + 1, CANCEL, did); if :: did -> mine = mine | (1 << (x + 1)) :: else -> skip fi; x++
         :: else -> break
         fi
       :: else -> break
       od
     :: else -> skip
     fi;
#endif
     /* the deliveries of what this thread settled: in place, or queued until after the return */
     if :: deferred = true :: skip fi;
     x = 0;
     do
     :: !deferred && x < N - 1 ->
       if :: mine & (1 << x) -> receive(x + 1, result[x], did); if :: did -> mine = mine | (1 << (x + 1)) :: else -> skip fi :: else -> skip fi;
       x++
     :: else -> break
     od;
     if
     :: flipped ->
       x = 0;
       do
       :: x < N -> assert(result[x] != PENDING); x++
       :: else -> break
       od
     :: else -> skip
     fi;
     x = 0;
     do
     :: deferred && x < N - 1 ->
       if :: mine & (1 << x) -> receive(x + 1, result[x], did); if :: did -> mine = mine | (1 << (x + 1)) :: else -> skip fi :: else -> skip fi;
       x++
     :: else -> break
     od
  fi
}

/* The context went away: the source closes, and M's target (or a stage's own member's) forgets
   its member. */
proctype Closer() {
  bool tookM;
  byte t, x, tookOwn;
  if
  :: skip
  :: lock(sLock);
     if
     :: status == ACTIVE ->
       status = CLOSED; tookM = linked; linked = false; t = target;
       x = 1;
       do
       :: x < N -> if :: own[x] -> tookOwn = tookOwn | (1 << x); own[x] = false :: else -> skip fi; x++
       :: else -> break
       od
     :: else -> skip
     fi;
     unlock(sLock);
     if :: tookM -> lock(lk[t]); mem[t] = false; unlock(lk[t]) :: else -> skip fi;
     x = 1;
     do
     :: x < N -> if :: tookOwn & (1 << x) -> lock(lk[x]); mem[x] = false; unlock(lk[x]) :: else -> skip fi; x++
     :: else -> break
     od
  fi
}

init {
  byte x;
  atomic {
    mem[0] = true;
    run Settler();
    run Canceller();
    run Closer()
  }
  (_nr_pr == 1);
  assert(settles == N);
  x = 0;
  do
  :: x < N ->
    assert(result[x] != PENDING);
    /* no lost cancel */
    assert(!pendingAtCancel[x] || result[x] == CANCEL);
    x++
  :: else -> break
  od;
  assert(!linked);
  x = 1;
  do
  :: x < N -> assert(!own[x]); x++
  :: else -> break
  od
}
