import Foundation
import Synchronization

/// The last hour of the notification URL's answers per app, in this process: how many bodies
/// were admitted and how many refused at the door (never stored). The intake's health check
/// reads them: a root or bundle misconfigured, or forged traffic, shows as refusals.
final class IntakeCounters: Sendable {
    private let entries = Mutex<[String: [(at: Date, refused: Bool)]]>([:])
    static let window: TimeInterval = 3600
    static let capacity = 20_000

    func record(appId: String, refused: Bool, at date: Date) {
        entries.withLock { entries in
            var list = entries[appId] ?? []
            list.append((date, refused))
            if list.count > Self.capacity || (list.first.map { $0.at < date.addingTimeInterval(-Self.window) } ?? false) {
                list.removeAll { $0.at < date.addingTimeInterval(-Self.window) }
                if list.count > Self.capacity { list.removeFirst(list.count - Self.capacity) }
            }
            entries[appId] = list
        }
    }

    /// Admitted and refused bodies of `appId` in the hour before `now`.
    func lastHour(appId: String, now: Date) -> (admitted: Int, refused: Int) {
        entries.withLock { entries in
            let recent = (entries[appId] ?? []).filter { $0.at >= now.addingTimeInterval(-Self.window) && $0.at <= now }
            let refused = recent.filter(\.refused).count
            return (recent.count - refused, refused)
        }
    }
}
