import Foundation

/// Text made safe for HTML: every character that could open markup or leave an attribute is
/// escaped. Templates escape `{{value}}` themselves; this is for the markup the server writes by
/// hand (the charts).
package enum HTML {
    package static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "`": result += "&#96;"
            case "=": result += "&#61;"
            default:
                // Control characters have no business in a page.
                if scalar.value < 0x20 && scalar != "\n" && scalar != "\t" || scalar.value == 0x7F {
                    result += "\u{FFFD}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}

/// The fields of an `application/x-www-form-urlencoded` body (what a dashboard form posts): at
/// most 64 fields, each name and value decoded; a repeated name keeps its first value.
package struct FormFields: Sendable {
    private(set) var values: [String: String] = [:]

    package init(_ pairs: [String: String]) { values = pairs }

    /// Parses a form body; `nil` when it is not valid form encoding.
    package init?(body: String) {
        let pairs = body.split(separator: "&", omittingEmptySubsequences: true)
        guard pairs.count <= 64 else { return nil }
        for pair in pairs {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count > 1 ? parts[1] : "") else { return nil }
            if values[name] == nil { values[name] = value }
        }
    }

    private static func decode(_ text: Substring) -> String? {
        guard let value = text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding,
            !value.unicodeScalars.contains(where: { ($0.value < 0x20 && !["\t", "\n", "\r"].contains($0)) || $0.value == 0x7F })
        else { return nil }
        return value
    }

    package subscript(_ name: String) -> String? { values[name] }

    /// The field trimmed, `nil` when absent or blank.
    package func text(_ name: String) -> String? {
        guard let value = values[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }
}
