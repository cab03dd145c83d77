import Foundation
import Logging
import NIOCore
import StorekeeperApps
import StorekeeperEventsOut
import StorekeeperInbox
import StorekeeperStore

/// Sends a copy of each notification the notification URL accepted to the app's
/// `notificationForwarding` URL: the body as the inbox keeps it, POSTed with
/// `Content-Type: application/json`, once per notification.
///
/// Nothing is sent from the door: processing an inbox row enqueues a
/// ``JobKind/forwardNotification`` job in the row's own transaction, keyed by the notification
/// (``JobRecord/forwardNotification(appId:inboxId:notificationUUID:rowKey:runAt:)``), and the
/// scheduler runs it (this type), so Apple's 200 never waits for the second backend, a restart
/// loses nothing, and Apple's repeats forward nothing more. A V2 body is exactly Apple's
/// (`{"signedPayload": "…"}`, the JWS byte for byte); a V1 body is Apple's JSON without its
/// `password`, which the server never keeps. A failed POST (an error, a timeout, anything but a
/// 2xx) is retried with the scheduler's backoff; the last failure is logged, counted and opens
/// the app's `job_failing` problem. The URL follows the rules of webhooks: loopback and private
/// addresses only when the app allows private networks.
package struct NotificationForwarder: Sendable {
    package let store: any StorekeeperStorage
    /// How forwards are POSTed; `nil` fails every attempt (retried once there is one).
    package let transport: (any WebhookTransport)?
    package let metrics: ServerMetrics?
    package let logger: Logger
    /// The attempts a forward gets (``attempts(configured:)``).
    package let maximumAttempts: Int
    /// How long one POST may take.
    package var timeout: TimeAmount = .seconds(10)

    package init(store: any StorekeeperStorage, transport: (any WebhookTransport)?, metrics: ServerMetrics?, logger: Logger, maximumAttempts: Int) {
        self.store = store
        self.transport = transport
        self.metrics = metrics
        self.logger = logger
        self.maximumAttempts = Self.attempts(configured: maximumAttempts)
    }

    /// The attempts a forward gets with the scheduler's `maximumAttempts` for other jobs:
    /// fourteen more at the backoff's six-hour cap, so a second backend that is down keeps getting
    /// its notifications for about three days, as Apple retries its own (the job's key keeps
    /// the retries one forward).
    package static func attempts(configured: Int) -> Int { configured + 14 }

    /// Why a forward failed; the scheduler retries it.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// Forwards the notification of `job` for `app`.
    package func forward(_ job: JobRecord, app: AppRuntime) async throws {
        let payload = try JobRunner.decode(ForwardPayload.self, job)
        guard let forwarding = app.configuration.notificationForwarding else {
            // The app no longer forwards: nothing to do.
            metrics?.notificationForwarded(outcome: "refused")
            return
        }
        guard let row = try await store.notification(id: payload.inboxId), row.appId == app.id else {
            metrics?.notificationForwarded(outcome: "refused")
            throw JobRunner.PermanentFailure(description: "inbox row \(payload.inboxId) is gone: nothing to forward")
        }
        if let refusal = refusal(forwarding.url, app: app) {
            metrics?.notificationForwarded(outcome: "refused")
            logger.warning("notification not forwarded", metadata: ["app": "\(app.id)", "inbox_id": "\(payload.inboxId)", "reason": "\(refusal)"])
            throw JobRunner.PermanentFailure(description: refusal)
        }
        do {
            guard let transport else { throw Failure(description: "no HTTP client to forward with") }
            let headers = [("content-type", "application/json"), ("user-agent", "Storekeeper-Forwarding/1")]
            let answer: WebhookAnswer
            do {
                answer = try await transport.post(url: forwarding.url, headers: headers, body: Data(row.body.utf8), timeout: timeout)
            } catch {
                throw Failure(description: "not reached: " + String(String(describing: error).prefix(300)))
            }
            guard (200..<300).contains(answer.status) else {
                throw Failure(
                    description: "HTTP \(answer.status)"
                        + (answer.body.isEmpty ? "" : ": " + String(decoding: answer.body.prefix(200), as: UTF8.self)))
            }
            metrics?.notificationForwarded(outcome: "delivered")
        } catch let failure as Failure {
            let last = job.attempts >= maximumAttempts
            metrics?.notificationForwarded(outcome: last ? "abandoned" : "failed")
            if last {
                logger.error(
                    "notification forwarding gave up",
                    metadata: ["app": "\(app.id)", "inbox_id": "\(payload.inboxId)", "attempts": "\(job.attempts)", "error": "\(failure)"])
            }
            throw failure
        }
    }

    /// Why `url` may not be reached for `app` now (a loopback or private address without
    /// `allowPrivateNetworks`), or `nil`.
    package func refusal(_ url: String, app: AppRuntime) -> String? {
        guard app.configuration.allowPrivateNetworks != true else { return nil }
        guard let host = URL(string: url)?.host else { return "refused: the forwarding URL is not valid" }
        return PrivateNetworks.resolvesPrivate(host: host) ? "refused: \(host) resolves to a loopback or private address" : nil
    }
}
