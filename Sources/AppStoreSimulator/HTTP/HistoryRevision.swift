import AppStoreJOSE
import Foundation

/// The `revision` token of transaction-history and refund-history pages: a position in the
/// store's modification order and the direction of travel.
///
/// Walking ascending, a page holds the next transactions modified after the position; the
/// last page's revision stays usable later to fetch only what changed since, as Apple's does.
/// Walking descending, a page holds the transactions modified before the position.
struct HistoryRevision: Hashable, Sendable {
    var descending: Bool
    var sequence: Int

    /// The start of a walk.
    static func start(descending: Bool) -> HistoryRevision {
        HistoryRevision(descending: descending, sequence: descending ? Int.max : 0)
    }

    /// The token's text (base64url, opaque to clients).
    var token: String {
        Base64URL.encode(Data("rev1:\(descending ? "D" : "A"):\(sequence)".utf8))
    }

    /// Reads a token; `nil` when it is not one this simulator issued.
    init?(token: String) {
        guard token.count < 100, let bytes = Base64URL.decode(token) else { return nil }
        let data = Data(bytes)
        let parts = String(decoding: data, as: UTF8.self).split(separator: ":")
        guard parts.count == 3, parts[0] == "rev1", parts[1] == "A" || parts[1] == "D",
            let sequence = Int(parts[2]), sequence >= 0
        else { return nil }
        self.init(descending: parts[1] == "D", sequence: sequence)
    }

    init(descending: Bool, sequence: Int) {
        self.descending = descending
        self.sequence = sequence
    }

    /// One page of `items` (in modification order, oldest first) after this position, the
    /// revision of the next request and whether more remain.
    func page<Item>(
        _ items: [(sequence: Int, item: Item)], size: Int, allSequences: [Int]
    ) -> (items: [Item], revision: HistoryRevision, hasMore: Bool) {
        let remaining =
            descending
            ? items.filter { $0.sequence < sequence }.reversed()
            : items.filter { $0.sequence > sequence }
        let page = Array(remaining.prefix(size))
        let hasMore = remaining.count > page.count
        var next = self
        if let last = page.last { next.sequence = last.sequence }
        if !descending, !hasMore { next.sequence = max(next.sequence, allSequences.max() ?? 0) }
        return (page.map(\.item), next, hasMore)
    }
}
