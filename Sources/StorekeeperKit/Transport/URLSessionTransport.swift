// Only where it is the transport: on Linux the SDK uses AsyncHTTPClient, and importing
// FoundationNetworking there would tie every binary (the static release among them) to libcurl.
#if canImport(Darwin) || !(canImport(NIOSSL) && canImport(AsyncHTTPClient))
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Security)
import Security
#endif

/// The SDK's transport on Apple platforms: URLSession, with the configured pins checked against
/// the chain the system validated during the TLS challenge (after the system's own checks; see
/// ``CertificatePins`` for the walk), so a server whose chain does not lead to a pinned key is
/// refused before the request leaves the device.
public final class URLSessionTransport: NSObject, StorekeeperTransport, URLSessionDelegate, @unchecked Sendable {
    // `@unchecked`: the session and pins are set once in `init` and never changed.
    public let pins: CertificatePins
    private var session: URLSession!

    public init(pins: CertificatePins = .none) {
        self.pins = pins
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    public func send(_ request: TransportRequest, timeout: TimeInterval) async throws -> TransportResponse {
        var outgoing = URLRequest(url: request.url, timeoutInterval: timeout)
        outgoing.httpMethod = request.method
        for (name, value) in request.headers { outgoing.setValue(value, forHTTPHeaderField: name) }
        outgoing.httpBody = request.body
        do {
            let (data, response) = try await session.data(for: outgoing)
            guard let http = response as? HTTPURLResponse else { throw StorekeeperError(.network, "not an HTTP answer") }
            return TransportResponse(status: http.statusCode, body: data)
        } catch let error as StorekeeperError {
            throw error
        } catch let error as URLError where error.code == .cancelled && !pins.isEmpty {
            throw StorekeeperError(
                .pinMismatch, "the certificate chain of \(request.url.host ?? "the server") does not lead to a pinned public key; nothing was sent")
        } catch {
            throw StorekeeperError(.network, "\(request.url.host ?? "the server"): \(error)")
        }
    }

    public func urlSession(
        _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(Security)
        guard !pins.isEmpty, challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
            let trust = challenge.protectionSpace.serverTrust
        else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        var failure: CFError?
        guard SecTrustEvaluateWithError(trust, &failure),
            let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate],
            pins.matches(
                chain: chain.map { [UInt8](SecCertificateCopyData($0) as Data) }, host: challenge.protectionSpace.host, at: Date())
        else {
            completionHandler(.cancelAuthenticationChallenge, nil)
            return
        }
        completionHandler(.useCredential, URLCredential(trust: trust))
        #else
        completionHandler(.performDefaultHandling, nil)
        #endif
    }
}
#endif
