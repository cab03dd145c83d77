import AppStoreModels
import AppStoreSimulator
import AppStoreTestSigning
import AppStoreVerification
import Foundation
import Hummingbird
import StorekeeperTestSupport
import Synchronization
import Testing

/// Delivery over real HTTP, to a Hummingbird server on a loopback port.
///
/// Timing-bound: a transport's deadline decides between an answer and a timed-out attempt.
/// Posts that must be answered get a patient transport; the deadline test's server stalls ten
/// times its deadline.
@Suite("Notification delivery over loopback HTTP", .timingBound)
struct DeliveryLoopbackTests {
    typealias Support = DeliveryTestSupport

    @Test("a server failing the first two posts gets three, and the history shows Apple's instants")
    func retriesReachRealServer() async throws {
        let server = LoopbackNotificationServer(failures: 2)
        let store = Support.store()
        try await server.run { url, _ in
            let delivery = NotificationDelivery(
                store: store, configuration: DeliveryConfiguration(v2URL: url), transport: Support.patientTransport())
            let record = Support.record(1)
            delivery.enqueue(record)
            await Support.drain(delivery)
            let attempts = store.notification(record.notificationUUID)?.sendAttempts ?? []
            #expect(attempts.map(\.sendAttemptResult) == [.unsuccessfulHttpResponseCode, .unsuccessfulHttpResponseCode, .success])
            #expect(Support.attemptHours(store, record.notificationUUID) == [0, 1, 13])
        }
        let bodies = server.bodies
        #expect(bodies.count == 3)
        let decoded = try bodies.map { try JSONDecoder().decode(ResponseBodyV2.self, from: $0) }
        #expect(decoded.allSatisfy { $0.signedPayload == Support.record(1).signedPayload })
    }

    @Test("a server that always fails gets exactly six posts, then no more")
    func alwaysFailingServerGetsSix() async throws {
        let server = LoopbackNotificationServer(failures: .max)
        try await server.run { url, _ in
            let delivery = NotificationDelivery(
                store: Support.store(), configuration: DeliveryConfiguration(v2URL: url), transport: Support.patientTransport())
            delivery.enqueue(Support.record(1))
            await Support.drain(delivery)
            await delivery.deliverDue(now: Support.start.addingTimeInterval(10_000 * Support.hour))
            #expect(delivery.totals.abandoned == 1)
        }
        #expect(server.bodies.count == 6)
    }

    @Test("dropped notifications never reach the server; duplicated ones arrive twice")
    func dropAndDuplicateOverHTTP() async throws {
        let server = LoopbackNotificationServer()
        try await server.run { url, _ in
            let store = Support.store()
            var configuration = DeliveryConfiguration(v2URL: url, dropRate: 0.5, duplicateRate: 1, seed: 3)
            configuration.concurrency = 4
            let delivery = NotificationDelivery(store: store, configuration: configuration, transport: Support.patientTransport())
            for index in 1...20 { delivery.enqueue(Support.record(index)) }
            await Support.drain(delivery)
            let delivered = delivery.totals.successes
            #expect(delivered + delivery.totals.dropped == 20)
            #expect(delivered > 0 && delivery.totals.dropped > 0)
            // A post that timed out would have reached the server and been retried: one body
            // more than the delivered count says (the patient transport keeps that from happening).
            let failedAttempts = (1...20).flatMap { store.notification(Support.record($0).notificationUUID)?.sendAttempts ?? [] }
                .filter { $0.sendAttemptResult != .success }.count
            #expect(server.bodies.count == 2 * delivered, "\(failedAttempts) attempt(s) failed")
        }
    }

    @Test("a post answered after the deadline reached the server all the same: recorded as timed out, retried, and the server sees it again")
    func lateAnswerArrivesAgain() async throws {
        let store = Support.store()
        let record = Support.record(1)
        // The first post is answered only once delivery has recorded it as timed out.
        let server = LoopbackNotificationServer { _ in
            for _ in 0..<12_000 where (store.notification(record.notificationUUID)?.sendAttempts ?? []).isEmpty {
                try? await Task.sleep(for: .milliseconds(10))
            }
            return .ok
        }
        try await server.run { url, _ in
            let transport = AsyncHTTPNotificationTransport(configuration: .init(timeout: .seconds(1)))
            let delivery = NotificationDelivery(store: store, configuration: DeliveryConfiguration(v2URL: url), transport: transport)
            delivery.enqueue(record)
            await Support.drain(delivery)
            #expect(delivery.totals.successes == 1)
        }
        let attempts = (store.notification(record.notificationUUID)?.sendAttempts ?? []).compactMap(\.sendAttemptResult)
        #expect(attempts.first == .timedOut && attempts.last == .success, "\(attempts)")
        // Every attempt reached the server, the timed-out one too: one body more than deliveries.
        #expect(server.bodies.count == attempts.count)
    }

    @Test("a server slower than the deadline is recorded as timed out")
    func slowServerTimesOut() async throws {
        let server = LoopbackNotificationServer()
        try await server.run { _, slow in
            let transport = AsyncHTTPNotificationTransport(configuration: .init(timeout: .milliseconds(300)))
            let result = await transport.post(Data("{}".utf8), to: slow, headers: [:])
            #expect(result == .failure(.timedOut))
            #expect(result.sendAttemptResult == .timedOut)
        }
    }

    @Test("a port nobody listens on is a failed attempt, not a thrown error")
    func refusedConnectionIsAFailure() async throws {
        let url = try #require(URL(string: "http://127.0.0.1:1/notifications"))
        let shared = AsyncHTTPNotificationTransport(configuration: .init(timeout: .seconds(1)))
        let result = await shared.post(Data("{}".utf8), to: url, headers: [:])
        #expect(!result.isSuccess && result.status == nil)
        let clock = ContinuousClock()
        let started = clock.now
        let owned = try await AsyncHTTPNotificationTransport.withOwnedClient(configuration: .init(timeout: .seconds(5))) { transport in
            await transport.post(Data("{}".utf8), to: url, headers: [:])
        }
        #expect(owned == .failure(.socketIssue))
        // Only that it ends: a loaded CI machine took 15 s here once, so the bound is far
        // beyond any delay (not a speed claim).
        #expect(clock.now - started < .seconds(120))
    }

    @Test("a notification signed by the simulator arrives and verifies against the test root")
    func signedNotificationVerifies() async throws {
        let now = Support.start
        let authority = try TestCertificateAuthority.generate(
            notBefore: now.addingTimeInterval(-86_400 * 365), notAfter: now.addingTimeInterval(86_400 * 365))
        let receipts = try ReceiptSigningAuthority.generate(
            validFrom: now.addingTimeInterval(-86_400 * 365), validUntil: now.addingTimeInterval(86_400 * 365))
        let signer = SimulatorSigner(certificateAuthority: authority, receiptAuthority: receipts)
        let store = Support.store()
        let uuid = "6b0f8e5c-2f6f-4d5e-9a39-4d8f0c5b7a21"
        let signed = try signer.signNotification(
            type: .test, subtype: nil, uuid: uuid, transaction: nil, subscription: nil, store: store, signedDate: now)
        let verifier = try SignedDataVerifier(
            rootCertificates: [authority.rootCertificateDER], bundleId: store.bundleId, appAppleId: store.appAppleId,
            environment: store.environment)
        let verified = Mutex<[String]>([])
        let server = LoopbackNotificationServer { body in
            guard let payload = try? JSONDecoder().decode(ResponseBodyV2.self, from: body).signedPayload,
                let notification = await verifier.verifyAndDecodeNotification(payload, now: now).payload
            else { return .badRequest }
            verified.withLock { $0.append(notification.notificationUUID ?? "") }
            return .ok
        }
        try await server.run { url, _ in
            let delivery = NotificationDelivery(
                store: store, configuration: DeliveryConfiguration(v2URL: url), transport: Support.patientTransport())
            delivery.enqueue(
                NotificationRecord(
                    notificationUUID: uuid, notificationType: .test, subtype: nil, originalTransactionId: nil, transactionId: nil,
                    firstSendDate: now, signedPayload: signed))
            let report = await delivery.deliverDue(now: now)
            #expect(report.successes == 1)
        }
        #expect(verified.withLock { $0 } == [uuid])
        #expect(store.notification(uuid)?.sendAttempts.map(\.sendAttemptResult) == [.success])
    }
}
