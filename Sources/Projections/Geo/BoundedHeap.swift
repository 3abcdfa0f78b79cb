/// An element a ``BoundedHeap`` can keep: one of two elements ranks before the other.
protocol HeapRanked {
  /// Whether `self` ranks before `other` (is better: kept in preference).
  func ranksBefore(_ other: Self) -> Bool
}

extension Double: HeapRanked {
  /// Smaller ranks first.
  @inline(__always)
  func ranksBefore(_ other: Double) -> Bool { self < other }
}

/// A max-heap of the best `capacity` elements seen, in a buffer its owner holds: the worst kept
/// at the top, so a newcomer is compared with it once. Both stages of a nearest-neighbour query
/// keep one: the walk for the smallest chords, the ranking for the best candidates.
struct BoundedHeap<Element: HeapRanked> {
  let storage: UnsafeMutableBufferPointer<Element>
  let capacity: Int
  private(set) var count = 0

  /// A heap of at most `capacity` (≥ 1) elements in the first slots of `storage`.
  init(storage: UnsafeMutableBufferPointer<Element>, capacity: Int) {
    precondition(capacity >= 1 && capacity <= storage.count, "room for \(capacity) elements")
    self.storage = storage
    self.capacity = capacity
  }

  /// Whether `capacity` elements are kept.
  var isFull: Bool { count == capacity }

  /// The worst element kept; only when `count` > 0.
  var worst: Element { storage[0] }

  /// Keeps `element` if there is room or it ranks before the worst kept (which then goes);
  /// returns whether it was kept.
  @inline(__always)
  @discardableResult
  mutating func offer(_ element: Element) -> Bool {
    if count < capacity {
      var child = count
      count += 1
      while child > 0 {
        let parent = (child - 1) / 2
        guard storage[parent].ranksBefore(element) else { break }
        storage[child] = storage[parent]
        child = parent
      }
      storage[child] = element
      return true
    }
    guard element.ranksBefore(storage[0]) else { return false }
    siftDown(element, count: count)
    return true
  }

  /// Places `element` at the top of the first `count` slots and restores the heap order.
  @inline(__always)
  private func siftDown(_ element: Element, count: Int) {
    var parent = 0
    while true {
      var child = 2 * parent + 1
      if child >= count { break }
      if child + 1 < count && storage[child].ranksBefore(storage[child + 1]) { child += 1 }
      guard element.ranksBefore(storage[child]) else { break }
      storage[parent] = storage[child]
      parent = child
    }
    storage[parent] = element
  }

  /// Turns the heap into a list of the kept elements, best first (heapsort), in the first
  /// `count` slots.
  func sort() {
    var remaining = count
    while remaining > 1 {
      remaining -= 1
      let worst = storage[0]
      siftDown(storage[remaining], count: remaining)
      storage[remaining] = worst
    }
  }
}
