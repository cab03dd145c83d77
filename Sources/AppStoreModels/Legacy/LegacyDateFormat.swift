import Foundation

/// The three ways Apple writes a date in `verifyReceipt` responses and V1 notifications.
///
/// Every date appears as a trio of keys: `<name>` (`"2020-07-14 19:36:40 Etc/GMT"`),
/// `<name>_ms` (milliseconds since 1970 as a string) and `<name>_pst`
/// (`"2020-07-14 12:36:40 America/Los_Angeles"`, the US Pacific wall clock, daylight saving
/// included). The Pacific conversion is computed from the US rules here rather than read from the
/// system time-zone database, so the output is the same on every machine, with or without tzdata.
public enum LegacyDateFormat {
    /// `"YYYY-MM-DD HH:MM:SS Etc/GMT"` for `date`, seconds truncated as Apple does.
    public static func gmtString(from date: Date) -> String {
        format(seconds: wholeSeconds(of: date), suffix: "Etc/GMT")
    }

    /// `"YYYY-MM-DD HH:MM:SS America/Los_Angeles"`: the US Pacific wall-clock time of `date`.
    public static func pacificString(from date: Date) -> String {
        let seconds = wholeSeconds(of: date)
        return format(seconds: seconds + PacificTime.offsetSeconds(atUTC: seconds), suffix: "America/Los_Angeles")
    }

    /// Milliseconds since 1970 as Apple writes them in `*_ms` keys (a decimal string).
    public static func millisecondsString(from date: Date) -> String {
        String(date.appStoreMilliseconds)
    }

    /// Parses `"YYYY-MM-DD HH:MM:SS Etc/GMT"` (also with `GMT`, `UTC` or no zone name), every
    /// field its fixed number of ASCII digits, as Apple writes them.
    ///
    /// Returns `nil` for anything else, including the Pacific form, masked values and years of
    /// more than four digits (which would overflow the day arithmetic).
    public static func date(fromGMTString string: String) -> Date? {
        let parts = string.split(separator: " ")
        guard parts.count == 2 || parts.count == 3 else { return nil }
        if parts.count == 3, !["Etc/GMT", "GMT", "UTC", "Etc/UTC"].contains(parts[2]) { return nil }
        let day = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        let time = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard day.count == 3, time.count == 3,
            let year = number(day[0], digits: 4), let month = number(day[1], digits: 2), let dayOfMonth = number(day[2], digits: 2),
            let hour = number(time[0], digits: 2), let minute = number(time[1], digits: 2), let second = number(time[2], digits: 2),
            (1...12).contains(month), (1...31).contains(dayOfMonth),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = CivilCalendar.daysSinceEpoch(year: year, month: month, day: dayOfMonth)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// The value of exactly `digits` ASCII digits; `nil` for anything else (a sign included).
    private static func number(_ text: Substring, digits: Int) -> Int? {
        guard text.utf8.count == digits else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// Parses a `*_ms` value: whole (or fractional) milliseconds since 1970 as decimal text.
    public static func date(fromMillisecondsString string: String) -> Date? {
        guard !string.isEmpty, string.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-") }),
            let milliseconds = Double(string), milliseconds.isFinite
        else { return nil }
        return Date(appStoreMilliseconds: milliseconds)
    }

    private static func wholeSeconds(of date: Date) -> Int {
        let milliseconds = date.appStoreMilliseconds
        return Int(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
    }

    private static func format(seconds: Int, suffix: String) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilCalendar.date(daysSinceEpoch: days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) "
            + "\(pad(secondOfDay / 3_600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)) \(suffix)"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
