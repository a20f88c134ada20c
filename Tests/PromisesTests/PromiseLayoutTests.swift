import Testing

@testable import Promises

/// A pending promise or guarantee freed with callbacks still waiting frees them through an erased
/// view of its machine (`ErasedCallbackMachine`), found next to the lock: what that relies on, for
/// values of many shapes, and that freeing that way frees everything.
@Suite("Promise layout")
struct PromiseLayoutTests {
  final class Object: Sendable {}
  struct Large: Sendable {
    var words: (Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0)
  }
  enum Choice: Sendable {
    case none
    case text(String)
    case object(Object)
  }

  /// The machine of a `Promise<T>`, a `Guarantee<T>` and a `map` stage of each is where the erased
  /// view looks, and the view has the machine's size, stride and alignment.
  func checkLayout<T: Sendable>(of _: T.Type, sourceLocation: SourceLocation = #_sourceLocation) {
    let promise = Promise<T>(pending: ())
    let promiseMachine = withUnsafeMutablePointer(to: &promise.machine) { UnsafeMutableRawPointer($0) }
    #expect(promiseMachine == machineAddress(lockStorage: promise.coreLockStorage), sourceLocation: sourceLocation)
    #expect(
      MemoryLayout<Promise<T>.Machine>.size == MemoryLayout<ErasedCallbackMachine>.size, sourceLocation: sourceLocation)
    #expect(
      MemoryLayout<Promise<T>.Machine>.stride == MemoryLayout<ErasedCallbackMachine>.stride,
      sourceLocation: sourceLocation)
    #expect(
      MemoryLayout<Promise<T>.Machine>.alignment == MemoryLayout<ErasedCallbackMachine>.alignment,
      sourceLocation: sourceLocation)

    let stage = promise.map(on: nil) { $0 }
    let stageMachine = withUnsafeMutablePointer(to: &stage.machine) { UnsafeMutableRawPointer($0) }
    #expect(stageMachine == machineAddress(lockStorage: stage.coreLockStorage), sourceLocation: sourceLocation)

    let guarantee = Guarantee<T>(pending: ())
    let guaranteeMachine = withUnsafeMutablePointer(to: &guarantee.machine) { UnsafeMutableRawPointer($0) }
    #expect(
      guaranteeMachine == machineAddress(lockStorage: guarantee.coreLockStorage), sourceLocation: sourceLocation)
    #expect(
      MemoryLayout<Guarantee<T>.Machine>.size == MemoryLayout<ErasedCallbackMachine>.size,
      sourceLocation: sourceLocation)
    let guaranteeStage = guarantee.map(on: nil) { $0 }
    let guaranteeStageMachine = withUnsafeMutablePointer(to: &guaranteeStage.machine) {
      UnsafeMutableRawPointer($0)
    }
    #expect(
      guaranteeStageMachine == machineAddress(lockStorage: guaranteeStage.coreLockStorage),
      sourceLocation: sourceLocation)
  }

  @Test func theErasedViewCoversTheMachineForValuesOfEveryShape() {
    checkLayout(of: Void.self)
    checkLayout(of: Bool.self)
    checkLayout(of: UInt8.self)
    checkLayout(of: UInt16.self)
    checkLayout(of: Int32.self)
    checkLayout(of: Int.self)
    checkLayout(of: Double.self)
    checkLayout(of: Int?.self)
    checkLayout(of: Int??.self)
    checkLayout(of: String.self)
    checkLayout(of: [Int].self)
    checkLayout(of: Object.self)
    checkLayout(of: Object?.self)
    checkLayout(of: Large.self)
    checkLayout(of: Choice.self)
    checkLayout(of: (UInt8, Bool).self)
    checkLayout(of: (Int, UInt8).self)
    checkLayout(of: SIMD4<Float>.self)
    checkLayout(of: SIMD8<Double>.self)
    checkLayout(of: Swift.Result<Int, TestError>.self)
    checkLayout(of: (any Error).self)
  }

  /// Freed pending with callbacks of every kind waiting (closures, a stage, more than fit inline):
  /// everything they captured is freed.
  func checkFreesWaitingCallbacks<T: Sendable>(
    of _: T.Type, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    weak var captured: Object?
    weak var promiseSeen: Promise<T>?
    weak var guaranteeSeen: Guarantee<T>?
    do {
      let object = Object()
      captured = object
      // Made as the package's own stages are: no warning when freed pending.
      let promise = Promise<T>(pending: ())
      let guarantee = Guarantee<T>(pending: ())
      promiseSeen = promise
      guaranteeSeen = guarantee
      for _ in 0..<40 {
        promise.pipe { _ in withExtendedLifetime(object) {} }
        guarantee.pipe { (_: T) in withExtendedLifetime(object) {} }
      }
      _ = promise.map(on: nil) { value -> T in
        withExtendedLifetime(object) {}
        return value
      }.map(on: nil) { $0 }
      _ = guarantee.map(on: nil) { value -> T in
        withExtendedLifetime(object) {}
        return value
      }
    }
    #expect(promiseSeen == nil, sourceLocation: sourceLocation)
    #expect(guaranteeSeen == nil, sourceLocation: sourceLocation)
    #expect(captured == nil, sourceLocation: sourceLocation)
  }

  @Test func aPendingPromiseOrGuaranteeFreedWithWaitingCallbacksFreesThem() {
    checkFreesWaitingCallbacks(of: Void.self)
    checkFreesWaitingCallbacks(of: UInt8.self)
    checkFreesWaitingCallbacks(of: Int.self)
    checkFreesWaitingCallbacks(of: String.self)
    checkFreesWaitingCallbacks(of: Object.self)
    checkFreesWaitingCallbacks(of: Large.self)
    checkFreesWaitingCallbacks(of: Choice.self)
    checkFreesWaitingCallbacks(of: SIMD8<Double>.self)
  }
}
