/// An array kept in pages of a fixed number of elements (about 64 KiB each), so that appending
/// never moves what is already there: a read model's values, which grow by one entity at a time.
///
/// A plain array doubles its buffer when it fills and copies every element across, so for a
/// moment it holds the old buffer and the new one: a model of 80 000 contacts (264 bytes each)
/// went from 17 MB to 35 MB touched at once when its array grew past 65 536, the peak of a
/// rebuild of 4 M events. Pages cost at most one partly filled page of room, and a lookup one
/// shift and one mask more.
struct PagedArray<Element> {
  /// The pages; every one before the last is full, and at most one past the last element is
  /// empty (kept, so that an append and a removal at a page's edge do not allocate each time).
  private var pages: [[Element]] = []
  /// The number of elements.
  private(set) var count = 0
  /// log2 of the elements a page holds.
  private let shift: Int

  init() {
    // As many elements as fit in 64 KiB, a power of two, at least 16.
    let stride = max(1, MemoryLayout<Element>.stride)
    var shift = 4
    while shift < 16, stride << (shift + 1) <= 1 << 16 { shift += 1 }
    self.shift = shift
  }

  /// The elements a page holds.
  var pageCapacity: Int { 1 << shift }

  /// The element at `position`, read or changed in place.
  /// - Precondition: `0 <= position < count` (the pages' own bounds checks trap otherwise).
  subscript(position: Int) -> Element {
    get { pages[position >> shift][position & (pageCapacity - 1)] }
    _modify { yield &pages[position >> shift][position & (pageCapacity - 1)] }
  }

  /// Appends `element`, in a new page when the last is full.
  mutating func append(_ element: consuming Element) {
    let page = count >> shift
    if page == pages.count {
      var fresh: [Element] = []
      fresh.reserveCapacity(pageCapacity)
      pages.append(fresh)
    }
    pages[page].append(element)
    count += 1
  }

  /// Removes and returns the last element.
  /// - Precondition: the array is not empty.
  @discardableResult
  mutating func removeLast() -> Element {
    precondition(count > 0, "removeLast of an empty PagedArray")
    count -= 1
    let page = count >> shift
    let element = pages[page].removeLast()
    // Keep the emptied page as the one spare; drop a spare past it.
    if pages.count > page + 1 { pages.removeLast() }
    return element
  }
}

extension PagedArray: Sendable where Element: Sendable {}
