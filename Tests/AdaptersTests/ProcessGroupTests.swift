import Adapters
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A child's own children: cancelling stops the whole process group, and a process the child left
/// behind never keeps the run waiting for output.
@Suite("Child process groups")
struct ProcessGroupTests {
  /// A FIFO in the temporary directory, removed when the test ends.
  final class FIFO {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("ready-\(UUID().uuidString)").path

    init() {
      #expect(mkfifo(path, 0o600) == 0)
    }

    deinit { unlink(path) }
  }

  /// Whether no process of group `group` runs any more. A killed grandchild becomes a zombie that
  /// the system's init reaps, not us (on some machines, a container's first process never does),
  /// so zombies of other parents do not count; a zombie of ours would.
  static func groupIsGone(_ group: Int32) -> Bool {
    if kill(-group, 0) == -1 && errno == ESRCH { return true }
    #if os(Linux)
      let ours = getpid()
      let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
      for entry in entries where Int32(entry) != nil {
        guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")")
        else { continue }
        // After "pid (comm) ": state ppid pgrp ...
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 2, Int32(fields[2]) == group else { continue }
        if fields[0] != "Z" || Int32(fields[1]) == ours { return false }
      }
      return true
    #else
      return false
    #endif
  }

  @Test func cancellingAShellStopsItsChildrenWithinTheGracePeriod() async throws {
    let ready = FIFO()
    let alive = FIFO()
    let source = CancelSource()
    let group = WrittenOnce<Int32>()
    let endedAt = WrittenOnce<ContinuousClock.Instant>()
    // The subshell is the shell's child. It holds `alive` open (so its end is seen as end of file
    // there, without polling), signals readiness, then becomes `sleep`, which also holds the output
    // pipes, as the issue's `sleep 30; echo done` does.
    let alivePath = alive.path
    async let grandchildEnded = ChildProcessTests.readAll(alivePath)
    async let result = withCheckedContinuation { continuation in
      ChildProcess.run(
        ChildProcessTests.shell,
        arguments: ["-c", "(exec 3> \(alive.path); echo ready > \(ready.path); exec sleep 30); echo done"],
        signal: source.signal, gracePeriod: .seconds(5)
      ) {
        group.value = $0
      } completion: { result in
        endedAt.value = .now
        continuation.resume(returning: result)
      }
    }
    #expect(await ChildProcessTests.readAll(ready.path) == "ready\n")
    let cancelledAt = ContinuousClock.now
    source.cancel()
    let outcome = await result
    #expect(outcome.isCancellation)
    let elapsed = try #require(endedAt.value) - cancelledAt
    // Within the grace period (generous for loaded sanitizer runs); the old engine took the whole
    // `sleep 30`.
    #expect(elapsed < .seconds(5), "the run took \(elapsed) to end")
    _ = await grandchildEnded
    let leader = try #require(group.value)
    #expect(ChildProcessTests.isGone(leader), "the shell \(leader) still exists (running or zombie)")
    #expect(Self.groupIsGone(leader), "a process of group \(leader) still runs")
  }

  @Test func aGroupThatIgnoresSIGTERMIsKilledWhenTheGracePeriodEnds() async throws {
    let ready = FIFO()
    let alive = FIFO()
    let time = ManualDeadlineScheduler()
    let source = CancelSource()
    let launch = Launch()
    let alivePath = alive.path
    async let grandchildEnded = ChildProcessTests.readAll(alivePath)
    async let result = ChildProcessTests.run(
      ChildProcessTests.shell,
      ["-c", "trap '' TERM; (exec 3> \(alive.path); echo ready > \(ready.path); exec sleep 3600); echo done"],
      signal: source.signal, gracePeriod: .seconds(5), scheduler: time, launched: launch.record
    )
    #expect(await ChildProcessTests.readAll(ready.path) == "ready\n")
    let leader = await launch.pid()  // the child may write before the engine reports its launch
    source.cancel()
    #expect(kill(leader, 0) == 0, "SIGTERM is ignored, so the shell must still run")
    #expect(!Self.groupIsGone(leader))
    ChildProcessTests.expectSIGKILLScheduled(on: time, group: leader)
    time.advance(by: .seconds(5))
    let outcome = await result
    #expect(outcome.isCancellation)
    _ = await grandchildEnded  // end of file: the grandchild is gone too
    #expect(ChildProcessTests.isGone(leader))
    #expect(Self.groupIsGone(leader))
  }

  @Test func aProcessLeftRunningInTheBackgroundDoesNotKeepTheRunWaiting() async throws {
    // Not cancelled: the shell exits at once, its background `sleep` keeps the output pipes open.
    let group = WrittenOnce<Int32>()
    let result = await ChildProcessTests.run(ChildProcessTests.shell, ["-c", "sleep 30 & echo started"]) {
      group.value = $0
    }
    let leader = try #require(group.value)
    defer { kill(-leader, SIGKILL) }  // the background sleep, left alone by a run that was not cancelled
    #expect(try result.get().standardOutputText == "started\n")
  }

  @Test func outputLargerThanAPipeBufferArrivesWhole() async throws {
    let size = 1 << 20
    let result = await ChildProcessTests.run(
      ChildProcessTests.shell, ["-c", "head -c \(size) /dev/zero; head -c \(size / 2) /dev/zero >&2"])
    let output = try result.get()
    #expect(output.standardOutput.count == size)
    #expect(output.standardError.count == size / 2)
    #expect(output.succeeded)
  }
}
