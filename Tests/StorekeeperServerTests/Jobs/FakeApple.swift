import AppStoreModels
import AppStoreServerAPI
import AppStoreServerAPITesting
import AppStoreTestSigning
import Foundation
import SubscriptionEngine
import Synchronization

/// A fake App Store holding the true history of `count` monthly subscribers, signing with a
/// test CA: it answers statuses, notification history and refund history from the truth at the
/// clock's time, and hands out the notifications due, dropping every fifth.
final class FakeApple: Sendable {
    enum Scenario: Sendable { case renewing, cancels, refunded }

    struct Subscriber: Sendable {
        var chain: String
        var start: Date
        var scenario: Scenario
        var cancelAt: Date { start.addingTimeInterval(10 * Fixture.day) }
        var revokeAt: Date { start.addingTimeInterval(40 * Fixture.day) }
        /// Periods Apple charges for (nil: unbounded).
        var periods: Int? {
            switch scenario {
            case .renewing: nil
            case .cancels: 1
            case .refunded: 2
            }
        }
    }

    struct Notification: Sendable {
        var chain: String
        var date: Date
        var type: String
        var subtype: String?
        var uuid: String
        var dropped: Bool
    }

    static let period: TimeInterval = 30 * Fixture.day
    let ca: TestCertificateAuthority
    let clock: TestClock
    let subscribers: [Subscriber]
    let notifications: [Notification]
    private let delivered = Mutex(0)
    private let calls = Mutex([String: Int]())

    init(ca: TestCertificateAuthority, clock: TestClock, count: Int, horizon: Date) {
        self.ca = ca
        self.clock = clock
        var subscribers: [Subscriber] = []
        for index in 0..<count {
            let scenario: Scenario = [.renewing, .cancels, .refunded, .renewing][index % 4]
            let start = Fixture.t0.addingTimeInterval(Double(index % 12) * 3_600 + Double(index % 5) * Fixture.day)
            subscribers.append(Subscriber(chain: "9000\(index)", start: start, scenario: scenario))
        }
        self.subscribers = subscribers
        var notes: [Notification] = []
        for subscriber in subscribers {
            func add(_ date: Date, _ type: String, _ subtype: String? = nil) {
                if date <= horizon {
                    notes.append(
                        Notification(chain: subscriber.chain, date: date, type: type, subtype: subtype, uuid: UUID().uuidString, dropped: false))
                }
            }
            add(subscriber.start, "SUBSCRIBED", "INITIAL_BUY")
            var k = 1
            while subscriber.start.addingTimeInterval(Double(k) * Self.period) <= horizon, subscriber.periods.map({ k < $0 }) ?? true {
                add(subscriber.start.addingTimeInterval(Double(k) * Self.period), "DID_RENEW")
                k += 1
            }
            switch subscriber.scenario {
            case .renewing: break
            case .cancels:
                add(subscriber.cancelAt, "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED")
                add(subscriber.start.addingTimeInterval(Self.period), "EXPIRED", "VOLUNTARY")
            case .refunded:
                add(subscriber.revokeAt, "REFUND")
            }
        }
        notes.sort { $0.date < $1.date }
        for index in notes.indices where index % 5 == 2 { notes[index].dropped = true }
        notifications = notes
    }

    // MARK: Truth

    func subscriber(_ chain: String) -> Subscriber? { subscribers.first { $0.chain == chain } }

    func transactions(_ s: Subscriber, at t: Date) throws -> [JWSTransactionDecodedPayload] {
        var result: [JWSTransactionDecodedPayload] = []
        var k = 0
        while s.start.addingTimeInterval(Double(k) * Self.period) <= t, s.periods.map({ k < $0 }) ?? true {
            let purchase = s.start.addingTimeInterval(Double(k) * Self.period)
            let revoked = s.scenario == .refunded && k == 1 && t >= s.revokeAt ? s.revokeAt : nil
            result.append(
                try SignedData.transaction(
                    id: "\(s.chain)0\(k)", original: s.chain, purchase: purchase, expires: purchase.addingTimeInterval(Self.period),
                    signed: revoked ?? purchase, revoked: revoked))
            k += 1
        }
        return result
    }

    func renewal(_ s: Subscriber, at t: Date) throws -> JWSRenewalInfoDecodedPayload {
        switch s.scenario {
        case .renewing: return try SignedData.renewal(original: s.chain, autoRenew: true, signed: s.start)
        case .cancels: return try SignedData.renewal(original: s.chain, autoRenew: t < s.cancelAt, signed: t < s.cancelAt ? s.start : s.cancelAt)
        case .refunded: return try SignedData.renewal(original: s.chain, autoRenew: t < s.revokeAt, signed: t < s.revokeAt ? s.start : s.revokeAt)
        }
    }

    /// The engine's view of the truth at `t`.
    func trueState(_ chain: String, at t: Date, catalog: Catalog) throws -> SubscriptionState? {
        guard let s = subscriber(chain) else { return nil }
        let history = PurchaseHistory(transactions: try transactions(s, at: t), renewalInfos: [try renewal(s, at: t)])
        return CustomerState(history: history, catalog: catalog, at: t).subscription(chain)
    }

    // MARK: Delivery

    /// The bodies of notifications due by now not yet handed out; dropped ones are skipped.
    func due() throws -> [String] {
        let now = clock.now
        let range: Range<Int> = delivered.withLock { start in
            var end = start
            while end < notifications.count, notifications[end].date <= now { end += 1 }
            defer { start = end }
            return start..<end
        }
        return try notifications[range].filter { !$0.dropped }.map { JSONEncoder.payloadBody(try signed($0)) }
    }

    func signed(_ note: Notification) throws -> String {
        guard let s = subscriber(note.chain) else { return "" }
        let at = note.date
        let latest = try transactions(s, at: at).last
        var data: [String: Any] = ["environment": "Sandbox", "bundleId": Fixture.bundle]
        if let latest { data["signedTransactionInfo"] = try ca.signTransaction(latest) }
        data["signedRenewalInfo"] = try ca.signRenewalInfo(try renewal(s, at: at))
        var object: [String: Any] = [
            "notificationType": note.type, "notificationUUID": note.uuid, "version": "2.0",
            "signedDate": SignedData.ms(at), "data": data,
        ]
        if let subtype = note.subtype { object["subtype"] = subtype }
        return try ca.signNotification(try SignedData.decode(ResponseBodyV2DecodedPayload.self, object))
    }

    // MARK: API

    func count(_ endpoint: String) { calls.withLock { $0[endpoint, default: 0] += 1 } }
    var callCounts: [String: Int] { calls.withLock { $0 } }

    var client: AppStoreServerAPIFake {
        var fake = AppStoreServerAPIFake()
        fake.getAllSubscriptionStatusesHandler = { [self] chain, _ in
            count("statuses")
            guard let s = subscriber(chain) else { throw AppStoreServerAPIError(.apiError, "not found", httpStatus: 404) }
            let now = clock.now
            var item: [String: Any] = [
                "originalTransactionId": chain, "status": 1,
                "signedRenewalInfo": try ca.signRenewalInfo(try renewal(s, at: now)),
            ]
            if let latest = try transactions(s, at: now).last { item["signedTransactionInfo"] = try ca.signTransaction(latest) }
            return try SignedData.decode(
                StatusResponse.self,
                [
                    "environment": "Sandbox", "bundleId": Fixture.bundle,
                    "data": [["subscriptionGroupIdentifier": "pro", "lastTransactions": [item]]],
                ])
        }
        fake.getNotificationHistoryHandler = { [self] token, request in
            count("notificationHistory")
            let start = request.startDate ?? .distantPast
            let end = request.endDate ?? clock.now
            let matching = notifications.filter { note in
                note.date >= start && note.date <= end && (request.onlyFailures != true || note.dropped)
                    && (request.notificationType.map { $0.rawValue == note.type } ?? true)
            }
            let offset = token.flatMap(Int.init) ?? 0
            let page = Array(matching.dropFirst(offset).prefix(20))
            let more = offset + page.count < matching.count
            var object: [String: Any] = [
                "hasMore": more,
                "notificationHistory": try page.map { ["signedPayload": try signed($0), "sendAttempts": []] },
            ]
            if more { object["paginationToken"] = "\(offset + page.count)" }
            return try SignedData.decode(NotificationHistoryResponse.self, object)
        }
        fake.getRefundHistoryHandler = { [self] chain, _ in
            count("refundHistory")
            guard let s = subscriber(chain) else { throw AppStoreServerAPIError(.apiError, "not found", httpStatus: 404) }
            let refunded = try transactions(s, at: clock.now).filter { $0.revocationDate != nil }
            return try SignedData.decode(
                RefundHistoryResponse.self,
                [
                    "hasMore": false, "signedTransactions": try refunded.map { try ca.signTransaction($0) },
                ])
        }
        fake.getTransactionHistoryHandler = { [self] chain, revision, _, _ in
            count("transactionHistory")
            guard let s = subscriber(chain) else { throw AppStoreServerAPIError(.apiError, "not found", httpStatus: 404) }
            let all = try transactions(s, at: clock.now)
            let offset = revision.flatMap(Int.init) ?? 0
            let page = Array(all.dropFirst(offset).prefix(1))
            let more = offset + page.count < all.count
            return try SignedData.decode(
                HistoryResponse.self,
                [
                    "hasMore": more, "revision": "\(offset + page.count)", "environment": "Sandbox", "bundleId": Fixture.bundle,
                    "signedTransactions": try page.map { try ca.signTransaction($0) },
                ])
        }
        return fake
    }
}

extension JSONEncoder {
    /// `{"signedPayload": …}` as Apple posts it.
    static func payloadBody(_ signedPayload: String) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: ["signedPayload": signedPayload])) ?? Data(), as: UTF8.self)
    }
}
