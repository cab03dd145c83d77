import Foundation

/// The calendar intervals series are cut into: days, ISO weeks (Monday first) or months, in the
/// app's reporting time zone. Snapshot metrics take their value at each interval's end, flow
/// metrics sum over `[start, end)`; the interval that contains now is read up to now.
public enum ReportingInterval: String, Sendable, Hashable, CaseIterable, Codable {
    case day
    case week
    case month

    /// Why a series cannot be cut, for the API's 400.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// The most points one series may have.
    public static let maximumPoints = 1_000

    /// The intervals covering `[from, to)`: the first starts at the beginning of the interval
    /// containing `from`, the last is the one containing the instant before `to`.
    public func intervals(from: Date, to: Date, timeZone: TimeZone) throws(Problem) -> [DateInterval] {
        guard from < to else { throw Problem(description: "from must be before to") }
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = timeZone
        let component: Calendar.Component =
            switch self {
            case .day: .day
            case .week: .weekOfYear
            case .month: .month
            }
        guard var start = calendar.dateInterval(of: component, for: from)?.start else {
            throw Problem(description: "the calendar cannot cut \(rawValue)s here")
        }
        var intervals: [DateInterval] = []
        while start < to {
            guard intervals.count < Self.maximumPoints else {
                throw Problem(description: "more than \(Self.maximumPoints) \(rawValue)s: ask for a shorter range or a longer interval")
            }
            guard let next = calendar.date(byAdding: component, value: 1, to: start), next > start else {
                throw Problem(description: "the calendar cannot cut \(rawValue)s here")
            }
            intervals.append(DateInterval(start: start, end: next))
            start = next
        }
        return intervals
    }
}

extension [DateInterval] {
    /// The position of the interval that contains `date`, for intervals sorted and not
    /// overlapping (a binary search), or `nil` when none does.
    public func position(of date: Date) -> Int? {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle].end <= date { low = middle + 1 } else { high = middle }
        }
        return low < count && self[low].start <= date && date < self[low].end ? low : nil
    }
}
