/// The size in bytes the Swift runtime allocates for an instance of `type` (header included), read
/// from the class's metadata: for the tests that keep hot objects within the allocator's fast size
/// classes (see docs/performance.md).
public func instanceSize(of type: AnyClass) -> Int {
  // The class metadata's instance-size field follows the kind word, the superclass pointer and (with
  // Objective-C interoperability) the two cache words and the data pointer, then two 32-bit fields.
  #if canImport(ObjectiveC)
    let offset = 40
  #else
    let offset = 24
  #endif
  let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
  return Int(metadata.load(fromByteOffset: offset, as: UInt32.self))
}
