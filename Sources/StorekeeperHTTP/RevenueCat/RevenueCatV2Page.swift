import Foundation
import Hummingbird

/// v2's pagination: `limit` (1 to 1,000, 20 by default) items after `starting_after` (the id of
/// the last item of the previous page), and a `next_page` path that names the last item shown
/// while more follow.
package struct RevenueCatV2Page: Sendable {
    package var limit: Int
    package var startingAfter: String?
    /// Whether the request named its limit (then `next_page` repeats it).
    package var limitGiven: Bool

    package static let defaultLimit = 20
    package static let maximumLimit = 1000

    package init(limit: Int = Self.defaultLimit, startingAfter: String? = nil, limitGiven: Bool = false) {
        self.limit = limit
        self.startingAfter = startingAfter
        self.limitGiven = limitGiven
    }

    /// The request's `limit` and `starting_after`; a v2 `parameter_error` when either is wrong.
    package init(_ request: Request) throws {
        let parameters = request.uri.queryParameters
        let limits = parameters.getAll("limit")
        let cursors = parameters.getAll("starting_after")
        guard limits.count <= 1 else { throw RevenueCatV2Error.parameter("limit", "limit may be given once") }
        guard cursors.count <= 1 else { throw RevenueCatV2Error.parameter("starting_after", "starting_after may be given once") }
        if let text = limits.first {
            guard let limit = Int(text), (1...Self.maximumLimit).contains(limit) else {
                throw RevenueCatV2Error.parameter("limit", "limit must be an integer from 1 to \(Self.maximumLimit)")
            }
            self.init(limit: limit, limitGiven: true)
        } else {
            self.init()
        }
        if let cursor = cursors.first {
            guard (1...512).contains(cursor.utf8.count), !cursor.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw RevenueCatV2Error.parameter("starting_after", "starting_after must be the id of an item of the previous page")
            }
            startingAfter = cursor
        }
    }

    /// The page of `items` (all of a small list, in its order) this request asks for, as a v2
    /// list at `path`. A `starting_after` that names no item of the list is a `parameter_error`.
    package func list<Item>(_ items: [Item], id: (Item) -> String, path: String) throws -> RevenueCatV2.List<Item> {
        var start = items.startIndex
        if let startingAfter {
            guard let index = items.firstIndex(where: { id($0) == startingAfter }) else {
                throw RevenueCatV2Error.parameter("starting_after", "starting_after names no item of this list")
            }
            start = index + 1
        }
        let shown = Array(items[start..<min(items.endIndex, start + limit)])
        let more = start + shown.count < items.endIndex
        return RevenueCatV2.List(items: shown, nextPage: more ? nextPage(path: path, after: shown.last.map(id)) : nil, url: path)
    }

    /// `path?starting_after=<last>` (and the limit asked for), or `nil` without a last item.
    package func nextPage(path: String, after last: String?) -> String? {
        guard let last else { return nil }
        var next = path + "?starting_after=" + Self.queryEscaped(last)
        if limitGiven { next += "&limit=\(limit)" }
        return next
    }

    /// `text` percent-encoded for a query value.
    package static func queryEscaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryValueCharacters) ?? text
    }

    /// `text` percent-encoded for one path segment.
    package static func pathEscaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryValueCharacters) ?? text
    }

    private static let queryValueCharacters: CharacterSet = {
        var set = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(0x7F)))
        set.insert(charactersIn: "-._~:")
        return set
    }()
}
