import AppStoreModels
import AppStoreVerification
import Foundation
import StorekeeperApps
import StorekeeperStore
import Tracing

extension InboxProcessor {
    /// What verifying a V2 row found, before anything is decided about it: the verified
    /// notification with its signed payload, or why it cannot be believed.
    package enum V2Verification: Sendable {
        case verified(VerifiedNotification, signedPayload: String)
        case refused(InboxRejection)
    }

    /// Reads and verifies a V2 body with the app's verifiers. Pure: touches no store. A
    /// notification this process's route verified when it stored the row (`door`) has only its
    /// nested signed data verified here.
    package static func verifyV2(_ row: InboxNotification, app: AppRuntime, now: Date, door: VerifiedAtDoor? = nil) async -> V2Verification {
        guard
            let signedPayload = SignedPayloadBody.jws(in: row.body)
                ?? (try? JSONDecoder().decode(ResponseBodyV2.self, from: Data(row.body.utf8)))?.signedPayload
        else {
            return .refused(.malformed("the body has no signedPayload"))
        }
        let verdict: VerificationResult<VerifiedNotification>
        if let id = row.id, let notification = door?.take(id: id, appId: row.appId, signedPayload: signedPayload) {
            verdict = await app.verify(signedOnly: true, { await $0.verifyNestedData(of: notification, now: now) })
        } else {
            verdict = await app.verify(signedOnly: true, { await $0.verifyAndDecodeNotificationWithNestedData(signedPayload, now: now) })
        }
        switch verdict {
        case .invalid(let failure): return .refused(.unverified(reason: failure.reason.rawValue, message: failure.message))
        case .valid(let value): return .verified(value, signedPayload: signedPayload)
        }
    }

    /// Verifies the V2 rows of a batch concurrently (the cooperative pool bounds the
    /// parallelism to the machine's cores), keyed by inbox id. Rows of unknown apps and V1
    /// rows are left to ``decide(_:verification:reads:)``.
    package func verifyConcurrently(_ batch: [InboxNotification], now: Date) async -> [Int64: V2Verification] {
        await withTaskGroup(of: (Int64, V2Verification)?.self) { group in
            for row in batch where row.version == .v2 {
                guard let id = row.id, let app = apps.apps[row.appId] else { continue }
                group.addTask { [door = door.verified] in
                    // In the trace of the POST that stored the row, beside its processing span.
                    await withSpan("storekeeper.inbox.verify", context: NotificationTracing.context(traceparent: row.traceContext)) { span in
                        NotificationTracing.describe(span, appId: row.appId, metadata: row.metadata)
                        let verification = await Self.verifyV2(row, app: app, now: now, door: door)
                        if case .refused(let rejection) = verification {
                            span.attributes["storekeeper.outcome"] = "refused"
                            NotificationTracing.fail(span, reason: rejection.description)
                        } else {
                            span.attributes["storekeeper.outcome"] = "verified"
                        }
                        return (id, verification)
                    }
                }
            }
            var results: [Int64: V2Verification] = [:]
            for await case let (id, verification)? in group { results[id] = verification }
            return results
        }
    }
}
