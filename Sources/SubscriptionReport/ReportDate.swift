import Foundation
import SubscriptionEngine

/// The report's date format: ISO 8601 in UTC, with milliseconds only when the date has them
/// (`2024-01-31T12:00:00Z`, `2024-01-31T12:00:00.250Z`).
public enum ReportDate {
    /// Formats `date`.
    public static func string(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let whole = milliseconds.truncatingRemainder(dividingBy: 1000) == 0
        let rounded = Date(timeIntervalSince1970: milliseconds / 1000)
        if whole {
            return rounded.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
        }
        return rounded.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }

    /// Reads an ISO 8601 date-time such as `2024-01-31T12:00:00Z`, with or without fractional
    /// seconds, with `Z` or a numeric offset; `nil` for anything else.
    public static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(trimmed) { return date }
        if let date = try? Date.ISO8601FormatStyle().parse(trimmed) { return date }
        return nil
    }
}
