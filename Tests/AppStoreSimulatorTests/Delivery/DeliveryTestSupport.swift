import AppStoreModels
import AppStoreSimulator
import Foundation

/// Stores, records and URLs shared by the delivery tests.
enum DeliveryTestSupport {
    /// 2024-03-01T00:00:00Z, the instant test notifications are first sent.
    static let start = Date(timeIntervalSince1970: 1_709_251_200)
    static let v2URL = URL(string: "https://storekeeper.test/notifications/v2")!
    static let v1URL = URL(string: "https://storekeeper.test/notifications/v1")!
    static let hour: TimeInterval = 3600

    static func store(_ environment: AppStoreEnvironment = .production) -> SimulatedAppStore {
        SimulatedAppStore(bundleId: "com.example.storekeeper", appAppleId: 1_234_567_890, environment: environment)
    }

    /// A notification whose signed payload is a readable placeholder (delivery never reads it).
    static func record(_ index: Int, at date: Date = start, v1Body: Data? = nil) -> NotificationRecord {
        let uuid = String(format: "00000000-0000-4000-8000-%012d", index)
        return NotificationRecord(
            notificationUUID: uuid, notificationType: .didRenew, subtype: nil, originalTransactionId: "1000\(index)",
            transactionId: "2000\(index)", firstSendDate: date, signedPayload: "payload-\(uuid)", v1Body: v1Body)
    }

    /// Delivery of `store`'s notifications to the V2 test URL (and V1 when asked).
    static func delivery(
        store: SimulatedAppStore, transport: RecordingNotificationTransport,
        configure: (inout DeliveryConfiguration) -> Void = { _ in }
    ) -> NotificationDelivery {
        var configuration = DeliveryConfiguration(v2URL: v2URL)
        configure(&configuration)
        return NotificationDelivery(store: store, configuration: configuration, transport: transport)
    }

    /// A live transport whose deadline no answer of the loopback server misses, however loaded
    /// the machine: Apple's few seconds (the default) is the behaviour under test elsewhere, and
    /// a post that times out still reaches the server and is retried, one body more than the
    /// test counts.
    static func patientTransport() -> AsyncHTTPNotificationTransport {
        AsyncHTTPNotificationTransport(configuration: .init(timeout: .seconds(120)))
    }

    /// The attempt dates in a notification's history, as offsets in hours from `start`.
    static func attemptHours(_ store: SimulatedAppStore, _ uuid: String, from origin: Date = start) -> [Double] {
        (store.notification(uuid)?.sendAttempts ?? []).compactMap { $0.attemptDate?.timeIntervalSince(origin) }.map { $0 / hour }
    }

    /// Runs delivery until nothing is pending (at most `limit` steps), stepping to each due date.
    @discardableResult
    static func drain(_ delivery: NotificationDelivery, limit: Int = 1000) async -> Int {
        var steps = 0
        while let next = delivery.nextDueDate, steps < limit {
            await delivery.deliverDue(now: next)
            steps += 1
        }
        return steps
    }
}
