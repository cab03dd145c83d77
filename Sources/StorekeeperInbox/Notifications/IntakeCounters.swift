import Foundation
import Synchronization

/// The last hour of the notification URL's answers per app, in this process: how many bodies
/// were admitted and how many refused at the door (never stored). The intake's health check
/// reads them: a root or bundle misconfigured, or forged traffic, shows as refusals.
///
/// Each app keeps one bucket per second of the hour, reused as the clock goes round, so a
/// request costs the same whatever the rate and the memory is fixed.
package final class IntakeCounters: Sendable {
    private let apps = Mutex<[String: Buckets]>([:])
    package static let window: TimeInterval = 3600

    package struct Buckets {
        /// For each slot (`second % 3600`): the second it counts, and its counts.
        package var second = [Int64](repeating: .min, count: Int(IntakeCounters.window))
        package var admitted = [Int](repeating: 0, count: Int(IntakeCounters.window))
        package var refused = [Int](repeating: 0, count: Int(IntakeCounters.window))

        package mutating func record(refused isRefused: Bool, second: Int64) {
            let slot = Int(second.remainderReportingOverflow(dividingBy: Int64(IntakeCounters.window)).partialValue)
            let index = slot < 0 ? slot + Int(IntakeCounters.window) : slot
            if self.second[index] > second { return }  // older than the hour this slot now counts
            if self.second[index] < second {
                self.second[index] = second
                admitted[index] = 0
                refused[index] = 0
            }
            if isRefused { refused[index] += 1 } else { admitted[index] += 1 }
        }

        package func lastHour(now: Int64) -> (admitted: Int, refused: Int) {
            var totals = (admitted: 0, refused: 0)
            for index in second.indices where second[index] <= now && second[index] > now - Int64(IntakeCounters.window) {
                totals.admitted += admitted[index]
                totals.refused += refused[index]
            }
            return totals
        }
    }

    package func record(appId: String, refused: Bool, at date: Date) {
        let second = Self.second(of: date)
        apps.withLock { apps in
            apps[appId, default: Buckets()].record(refused: refused, second: second)
        }
    }

    /// Admitted and refused bodies of `appId` in the hour up to `now`: its second and the 3,599
    /// before it.
    package func lastHour(appId: String, now: Date) -> (admitted: Int, refused: Int) {
        let second = Self.second(of: now)
        return apps.withLock { apps in apps[appId]?.lastHour(now: second) ?? (0, 0) }
    }

    private static func second(of date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e15 else { return 0 }
        return Int64(seconds)
    }
}
