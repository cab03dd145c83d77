import Foundation

/// A min-heap of events by instant; ties keep insertion order, so a run is deterministic.
struct EventQueue: Sendable {
    private var heap: [(date: Date, sequence: Int, event: LifecycleEvent)] = []
    private var sequence = 0

    var count: Int { heap.count }
    var nextDate: Date? { heap.first?.date }

    mutating func schedule(_ event: LifecycleEvent, at date: Date) {
        sequence += 1
        heap.append((date, sequence, event))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.less(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest event at or before `date`.
    mutating func popDue(by date: Date) -> (Date, LifecycleEvent)? {
        guard let first = heap.first, first.date <= date else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count, Self.less(heap[left], heap[smallest]) { smallest = left }
                if right < heap.count, Self.less(heap[right], heap[smallest]) { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return (first.date, first.event)
    }

    private static func less(_ a: (date: Date, sequence: Int, event: LifecycleEvent), _ b: (date: Date, sequence: Int, event: LifecycleEvent)) -> Bool
    {
        a.date != b.date ? a.date < b.date : a.sequence < b.sequence
    }
}
