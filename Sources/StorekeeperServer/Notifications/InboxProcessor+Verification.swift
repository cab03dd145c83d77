import AppStoreModels
import AppStoreVerification
import Foundation
import StorekeeperStore

extension InboxProcessor {
    /// What verifying a V2 row found, before anything is decided about it: the verified
    /// notification with its signed payload, or why it cannot be believed.
    enum V2Verification: Sendable {
        case verified(VerifiedNotification, signedPayload: String)
        case refused(String)
    }

    /// Reads and verifies a V2 body with the app's verifiers. Pure: touches no store.
    static func verifyV2(_ row: InboxNotification, app: AppRuntime, now: Date) async -> V2Verification {
        guard let body = try? JSONDecoder().decode(ResponseBodyV2.self, from: Data(row.body.utf8)),
            let signedPayload = body.signedPayload
        else {
            return .refused("malformed: the body has no signedPayload")
        }
        switch await app.verify(signedOnly: true, { await $0.verifyAndDecodeNotificationWithNestedData(signedPayload, now: now) }) {
        case .invalid(let failure): return .refused("\(failure.reason.rawValue): \(failure.message)")
        case .valid(let value): return .verified(value, signedPayload: signedPayload)
        }
    }

    /// Verifies the V2 rows of a batch concurrently (the cooperative pool bounds the
    /// parallelism to the machine's cores), keyed by inbox id. Rows of unknown apps and V1
    /// rows are left to ``process(_:verification:)``.
    func verifyConcurrently(_ batch: [InboxNotification], now: Date) async -> [Int64: V2Verification] {
        await withTaskGroup(of: (Int64, V2Verification)?.self) { group in
            for row in batch where row.version == .v2 {
                guard let id = row.id, let app = apps.apps[row.appId] else { continue }
                group.addTask { (id, await Self.verifyV2(row, app: app, now: now)) }
            }
            var results: [Int64: V2Verification] = [:]
            for await case let (id, verification)? in group { results[id] = verification }
            return results
        }
    }
}
