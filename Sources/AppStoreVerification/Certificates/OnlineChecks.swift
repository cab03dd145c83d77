import Foundation
import X509

/// Online revocation checking (OCSP) of every new certificate chain, off unless configured.
///
/// With online checks a verifier behaves like Apple's in online mode: certificate validity is
/// checked at the current time instead of the payload's `signedDate`, each new chain's leaf and
/// intermediate are checked with their OCSP responders through ``transport``, and a verified
/// chain is trusted for ``cacheLifetime`` before being checked again. A responder that cannot be
/// reached gives ``VerificationFailure/Reason/retryableVerificationFailure``.
public struct OnlineChecks: Sendable {
    /// Sends OCSP requests (an HTTP client in production, a fake in tests).
    public var transport: any OCSPTransport

    /// How long a chain checked online stays trusted (Apple: 15 minutes).
    public var cacheLifetime: TimeInterval

    public init(transport: any OCSPTransport, cacheLifetime: TimeInterval = 15 * 60) {
        self.transport = transport
        self.cacheLifetime = cacheLifetime
    }
}

/// Delivers a DER-encoded OCSP request to a responder and returns its DER-encoded answer.
///
/// Production code POSTs `application/ocsp-request` to `uri` (Apple: `http://ocsp.apple.com/…`);
/// tests answer from memory. Throwing means the responder could not be reached or did not answer
/// with HTTP 200, which verification reports as retryable.
public protocol OCSPTransport: Sendable {
    func response(to request: [UInt8], uri: String) async throws -> [UInt8]
}

/// Adapts an ``OCSPTransport`` to swift-certificates' requester and remembers transport
/// failures, so they can be told apart from a revoked or forged chain.
struct RecordingOCSPRequester: OCSPRequester {
    let transport: any OCSPTransport
    let failures: FailureLog

    final class FailureLog: @unchecked Sendable {
        // Safety: `messages` is only touched while `lock` is held.
        private let lock = NSLock()
        private var messages: [String] = []

        func record(_ message: String) {
            lock.lock()
            messages.append(message)
            lock.unlock()
        }

        var first: String? {
            lock.lock()
            defer { lock.unlock() }
            return messages.first
        }
    }

    struct TransportFailed: Error, CustomStringConvertible {
        let description: String
    }

    func query(request: [UInt8], uri: String) async -> OCSPRequesterQueryResult {
        do {
            return .response(try await transport.response(to: request, uri: uri))
        } catch {
            let message = "OCSP request to \(uri) failed: \(error)"
            failures.record(message)
            return .terminalError(TransportFailed(description: message))
        }
    }
}
