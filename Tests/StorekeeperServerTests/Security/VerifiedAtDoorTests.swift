import AppStoreModels
import AppStoreTestSigning
import AppStoreVerification
import Foundation
import StorekeeperStore
import Testing

@testable import StorekeeperApps
@testable import StorekeeperInbox
@testable import StorekeeperServer

/// The route hands what it verified to the processor of the same process; the processor then
/// verifies only the nested signed data, and takes nothing it cannot match to the row.
@Suite("Verified at the door")
struct VerifiedAtDoorTests {
    struct Setup {
        let ca: TestCertificateAuthority
        let app: AppRuntime
    }

    static func withSetup(_ body: (Setup) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-door-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (configuration, ca) = try Fixture.configuration(directory: directory)
        let apps = try AppDirectory(configuration: configuration)
        try await body(Setup(ca: ca, app: try #require(apps.apps["alpha"])))
    }

    /// A notification body signed by `ca` whose transaction is signed by `transactionSigner`.
    static func body(_ ca: TestCertificateAuthority, transactionSigner: TestCertificateAuthority, chain: String) throws -> String {
        let now = Fixture.t0
        let transaction = try SignedData.transaction(
            id: chain, original: chain, purchase: now - 3600, expires: now + 30 * Fixture.day, signed: now - 60)
        let object: [String: Any] = [
            "notificationType": "SUBSCRIBED", "subtype": "INITIAL_BUY", "notificationUUID": UUID().uuidString, "version": "2.0",
            "signedDate": SignedData.ms(now - 60),
            "data": [
                "environment": "Sandbox", "bundleId": Fixture.bundle, "signedTransactionInfo": try transactionSigner.signTransaction(transaction),
            ],
        ]
        let payload = try SignedData.decode(ResponseBodyV2DecodedPayload.self, object)
        return #"{"signedPayload":""# + (try ca.signNotification(payload)) + #""}"#
    }

    /// What the route keeps for `body`: its JWS and the notification its own signature check gave.
    static func outer(_ body: String, app: AppRuntime) async throws -> (jws: String, notification: ResponseBodyV2DecodedPayload) {
        let jws = try #require(SignedPayloadBody.jws(in: body))
        guard case .valid(let notification) = await app.verify(signedOnly: true, { await $0.verifyAndDecodeNotification(jws, now: Fixture.t0) })
        else {
            throw Unexpected()
        }
        return (jws, notification)
    }

    struct Unexpected: Error {}

    static func row(_ id: Int64, _ body: String, app: String = "alpha") -> InboxNotification {
        InboxNotification(id: id, appId: app, idempotencyKey: "k\(id)", version: .v2, body: body, receivedAt: Fixture.t0)
    }

    @Test("a genuine notification handed over verifies as in full, and the entry is used once")
    func genuine() async throws {
        try await Self.withSetup { setup in
            let body = try Self.body(setup.ca, transactionSigner: setup.ca, chain: "d1")
            let (jws, notification) = try await Self.outer(body, app: setup.app)
            let door = VerifiedAtDoor()
            door.keep(id: 1, appId: "alpha", signedPayload: jws, notification: notification)
            guard case .verified(let handed, _) = await InboxProcessor.verifyV2(Self.row(1, body), app: setup.app, now: Fixture.t0, door: door),
                case .verified(let full, _) = await InboxProcessor.verifyV2(Self.row(1, body), app: setup.app, now: Fixture.t0)
            else { throw Unexpected() }
            #expect(door.count == 0)
            #expect(handed.notification.notificationUUID == full.notification.notificationUUID)
            #expect(handed.transaction?.transactionId == "d1")
            #expect(handed.transaction == full.transaction)
        }
    }

    @Test("a forged transaction inside a genuine notification is refused although the notification was handed over")
    func forgedNested() async throws {
        try await Self.withSetup { setup in
            let stranger = try TestCertificateAuthority.generate(
                notBefore: Date(timeIntervalSince1970: 1_577_836_800), notAfter: Date(timeIntervalSince1970: 2_208_988_800))
            let body = try Self.body(setup.ca, transactionSigner: stranger, chain: "d2")
            let (jws, notification) = try await Self.outer(body, app: setup.app)
            let door = VerifiedAtDoor()
            door.keep(id: 2, appId: "alpha", signedPayload: jws, notification: notification)
            guard case .refused(let reason) = await InboxProcessor.verifyV2(Self.row(2, body), app: setup.app, now: Fixture.t0, door: door) else {
                throw Unexpected()
            }
            #expect(door.count == 0)
            #expect(reason.description.contains("data.signedTransactionInfo"))
        }
    }

    @Test("an entry for another app or another JWS is not taken for the row: the row is verified in full")
    func mismatched() async throws {
        try await Self.withSetup { setup in
            let first = try Self.body(setup.ca, transactionSigner: setup.ca, chain: "d3")
            let second = try Self.body(setup.ca, transactionSigner: setup.ca, chain: "d4")
            let (firstJWS, firstNotification) = try await Self.outer(first, app: setup.app)
            let door = VerifiedAtDoor()
            // The entry for row 3 is the first notification; row 3 holds the second.
            door.keep(id: 3, appId: "alpha", signedPayload: firstJWS, notification: firstNotification)
            guard case .verified(let value, _) = await InboxProcessor.verifyV2(Self.row(3, second), app: setup.app, now: Fixture.t0, door: door)
            else {
                throw Unexpected()
            }
            #expect(value.transaction?.transactionId == "d4")
            door.keep(id: 4, appId: "gamma", signedPayload: firstJWS, notification: firstNotification)
            #expect(door.take(id: 4, appId: "alpha", signedPayload: firstJWS) == nil)
            #expect(door.take(id: 5, appId: "alpha", signedPayload: firstJWS) == nil)
            #expect(door.count == 0)
        }
    }

    @Test("at most its capacity is kept, the oldest going first, however many are kept and taken")
    func bounded() async throws {
        try await Self.withSetup { setup in
            let body = try Self.body(setup.ca, transactionSigner: setup.ca, chain: "d5")
            let (jws, notification) = try await Self.outer(body, app: setup.app)
            let door = VerifiedAtDoor(capacity: 8)
            for id in Int64(0)..<20 { door.keep(id: id, appId: "alpha", signedPayload: jws, notification: notification) }
            #expect(door.count == 8)
            #expect(door.take(id: 11, appId: "alpha", signedPayload: jws) == nil)
            #expect(door.take(id: 12, appId: "alpha", signedPayload: jws) != nil)
            for id in Int64(20)..<10_000 {
                door.keep(id: id, appId: "alpha", signedPayload: jws, notification: notification)
                if id % 3 == 1 { _ = door.take(id: id, appId: "alpha", signedPayload: jws) }
            }
            #expect(door.count == 8)
            #expect(door.take(id: 9_999, appId: "alpha", signedPayload: jws) != nil)
            #expect(door.orderCount <= 16)
        }
    }

    @Test("the entries hold no more than the byte budget, the oldest going first, and the bytes are counted back as entries are taken")
    func byteBudget() async throws {
        try await Self.withSetup { setup in
            let body = try Self.body(setup.ca, transactionSigner: setup.ca, chain: "d6")
            let (jws, notification) = try await Self.outer(body, app: setup.app)
            let nested = (notification.data?.signedTransactionInfo?.utf8.count ?? 0) + (notification.data?.signedRenewalInfo?.utf8.count ?? 0)
            #expect(nested > 1000)
            let entry = nested + 1024
            let door = VerifiedAtDoor(capacity: 1000, byteBudget: 5 * entry + entry / 2)
            for id in Int64(0)..<20 { door.keep(id: id, appId: "alpha", signedPayload: jws, notification: notification) }
            #expect(door.count == 5)
            #expect(door.bytes == 5 * entry)
            #expect(door.take(id: 14, appId: "alpha", signedPayload: jws) == nil)
            #expect(door.take(id: 15, appId: "alpha", signedPayload: jws) != nil)
            #expect(door.bytes == 4 * entry)
            // Keeping an id again replaces its entry without counting it twice.
            door.keep(id: 19, appId: "alpha", signedPayload: jws, notification: notification)
            #expect(door.count == 4 && door.bytes == 4 * entry)
            for id in Int64(16)..<20 { _ = door.take(id: id, appId: "alpha", signedPayload: jws) }
            #expect(door.count == 0 && door.bytes == 0)
        }
    }
}
