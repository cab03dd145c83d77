import Foundation

/// A calendar duration written in ISO 8601 (`P1M`, `P1Y`, `P7D`, `P2W`, `P1Y6M`, `PT12H`), as
/// Apple writes offer and subscription periods.
///
/// Years and months are calendar units: one month after 31 January is the last day of
/// February, as the App Store bills. Arithmetic is in UTC on the Gregorian calendar.
public struct ISO8601Duration: Sendable, Hashable, Codable, CustomStringConvertible {
    public var years: Int
    public var months: Int
    public var weeks: Int
    public var days: Int
    public var hours: Int
    public var minutes: Int
    public var seconds: Int

    public init(years: Int = 0, months: Int = 0, weeks: Int = 0, days: Int = 0, hours: Int = 0, minutes: Int = 0, seconds: Int = 0) {
        self.years = years
        self.months = months
        self.weeks = weeks
        self.days = days
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// Parses `PnYnMnWnDTnHnMnS`; `nil` for anything else (or a duration of zero).
    public init?(_ text: String) {
        var scalars = Substring(text.uppercased())
        guard scalars.first == "P" else { return nil }
        scalars = scalars.dropFirst()
        var inTime = false
        var number = ""
        var result = ISO8601Duration()
        var sawComponent = false
        for character in scalars {
            if character == "T" {
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
                continue
            }
            if character.isASCII, character.isNumber {
                guard number.count < 6 else { return nil }
                number.append(character)
                continue
            }
            guard let value = Int(number) else { return nil }
            number = ""
            sawComponent = true
            switch (character, inTime) {
            case ("Y", false): result.years = value
            case ("M", false): result.months = value
            case ("W", false): result.weeks = value
            case ("D", false): result.days = value
            case ("H", true): result.hours = value
            case ("M", true): result.minutes = value
            case ("S", true): result.seconds = value
            default: return nil
            }
        }
        guard number.isEmpty, sawComponent, result != ISO8601Duration() else { return nil }
        self = result
    }

    /// `date` moved forward by this duration.
    public func added(to date: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        var components = DateComponents()
        components.year = years
        components.month = months
        components.day = weeks * 7 + days
        components.hour = hours
        components.minute = minutes
        components.second = seconds
        if let moved = calendar.date(byAdding: components, to: date) { return moved }
        let approximate =
            Double(years) * 365.25 * 86_400 + Double(months) * 30.44 * 86_400
            + Double(weeks * 7 + days) * 86_400 + Double(hours * 3_600 + minutes * 60 + seconds)
        return date.addingTimeInterval(approximate)
    }

    public var description: String {
        var text = "P"
        if years != 0 { text += "\(years)Y" }
        if months != 0 { text += "\(months)M" }
        if weeks != 0 { text += "\(weeks)W" }
        if days != 0 { text += "\(days)D" }
        if hours != 0 || minutes != 0 || seconds != 0 {
            text += "T"
            if hours != 0 { text += "\(hours)H" }
            if minutes != 0 { text += "\(minutes)M" }
            if seconds != 0 { text += "\(seconds)S" }
        }
        return text
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let parsed = ISO8601Duration(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "Not an ISO 8601 duration: \(text.debugDescription)"))
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
