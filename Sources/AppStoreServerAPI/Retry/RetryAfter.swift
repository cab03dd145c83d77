import Foundation

/// Reads a `Retry-After` header into the instant the request may be sent again.
///
/// Apple's App Store Server API sends a Unix time in milliseconds. The other standard forms are
/// accepted too: a Unix time in seconds, a delay in seconds (RFC 9110), and an HTTP date.
public enum RetryAfter {
    /// Values at or above this are Unix times in milliseconds (year 2001 onwards).
    static let millisecondThreshold: Double = 1e12
    /// Values at or above this (and below the millisecond threshold) are Unix times in seconds.
    static let secondThreshold: Double = 1e9

    /// The instant `value` names, relative to `now` for delays; `nil` when unreadable.
    public static func date(from value: String, now: Date) -> Date? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let number = Double(text), number.isFinite, number >= 0 {
            if number >= millisecondThreshold { return Date(timeIntervalSince1970: number / 1000) }
            if number >= secondThreshold { return Date(timeIntervalSince1970: number) }
            return now.addingTimeInterval(number)
        }
        return httpDate(text)
    }

    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
