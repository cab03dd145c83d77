import Foundation

/// Text the inbox writes beside a row (metadata columns, failure reasons): never a U+0000 or
/// another control character (PostgreSQL refuses U+0000 in text; logs and JSON readers trip on
/// the rest) and never longer than the columns' purpose needs.
package enum InboxText {
    /// The longest metadata value kept; Apple's ids and names are far shorter.
    package static let maximumFieldLength = 256

    /// `value` without control characters, cut to ``maximumFieldLength`` characters; `nil`
    /// stays `nil`.
    package static func field(_ value: String?) -> String? {
        value.map { clean($0, limit: maximumFieldLength) }
    }

    /// A short description of an error for a failure reason: its type and a bounded
    /// description, cleaned.
    package static func summary(of error: any Error) -> String {
        clean("\(type(of: error)): \(String(describing: error))", limit: 300)
    }

    /// Whether `text` holds a character no stored text may hold (U+0000).
    package static func containsNUL(_ text: String) -> Bool {
        text.utf8.contains(0)
    }

    package static func clean(_ text: String, limit: Int) -> String {
        // Printable ASCII within the limit (every id Apple sends) is already clean.
        if text.utf8.count <= limit, text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var result = String.UnicodeScalarView()
        var kept = 0
        for scalar in text.unicodeScalars where !CharacterSet.controlCharacters.contains(scalar) {
            result.append(scalar)
            kept += 1
            if kept >= limit { break }
        }
        return String(result)
    }
}
