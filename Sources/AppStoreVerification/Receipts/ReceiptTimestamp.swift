import Foundation

/// The RFC 3339 timestamps of receipt payloads, stored as IA5String.
///
/// App Store receipts write `2020-07-22T17:39:08Z`; Xcode 12 wrote a numeric offset without a
/// colon (`2020-07-22T18:33:15+0100`). Fractional seconds and `+01:00` are accepted too.
enum ReceiptTimestamp {
    /// The instant `text` (the string's UTF-8 bytes) names, or `nil` if it is not such a timestamp.
    static func date(from text: ArraySlice<UInt8>) -> Date? {
        text.withUnsafeBufferPointer { date(from: $0) }
    }

    private static func date(from bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count >= 20, bytes.count <= 40, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(bytes[0..<4]), let month = number(bytes[5..<7]), let day = number(bytes[8..<10]),
            let hour = number(bytes[11..<13]), let minute = number(bytes[14..<16]), let second = number(bytes[17..<19]),
            (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59, second <= 60
        else { return nil }

        var index = 19
        var fraction = 0.0
        if bytes[index] == UInt8(ascii: ".") {
            var scale = 0.1
            index += 1
            while index < bytes.count, let digit = digit(bytes[index]) {
                fraction += Double(digit) * scale
                scale /= 10
                index += 1
            }
        }
        guard index < bytes.count, let offset = offsetSeconds(bytes[index...]) else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }

    /// `Z`, `+HHMM`, `+HH:MM`, `-HHMM` or `-HH:MM`.
    private static func offsetSeconds(_ zone: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        guard let sign = zone.first else { return nil }
        if sign == UInt8(ascii: "Z") { return zone.count == 1 ? 0 : nil }
        guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        let digits = zone.dropFirst().filter { $0 != UInt8(ascii: ":") }
        guard digits.count == 4, zone.count == 5 || zone.count == 6,
            let hours = number(digits.prefix(2)), let minutes = number(digits.suffix(2)), hours <= 23, minutes <= 59
        else { return nil }
        let magnitude = hours * 3_600 + minutes * 60
        return sign == UInt8(ascii: "+") ? magnitude : -magnitude
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func number(_ bytes: some Collection<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard let digit = digit(byte) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        return era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
    }
}
