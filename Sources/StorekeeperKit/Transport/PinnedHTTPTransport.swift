#if canImport(NIOSSL) && canImport(NIOPosix) && canImport(NIOHTTP1) && canImport(NIOTLS)
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS

/// HTTPS to a server whose certificate must hold one of the pinned public keys (Linux; Apple
/// platforms pin through ``URLSessionTransport``).
///
/// One connection per request. The pin check replaces the usual chain check (the pinned key is
/// the trust anchor, so an operator may pin a private CA's or a self-signed certificate; see
/// ``CertificatePins`` for the walk from the certificate the handshake proved to a pinned key),
/// and the request is written only after the handshake has passed it: a server whose chain does
/// not lead to a pinned key receives nothing.
public struct PinnedHTTPTransport: StorekeeperTransport {
    public let pins: CertificatePins
    /// The largest answer read.
    public var maximumBodySize = 8 << 20
    /// The time certificates' validity periods are checked at.
    let now: @Sendable () -> Date

    /// - Parameter now: the clock certificates' validity is checked against (the system's by default).
    public init(pins: CertificatePins, now: @escaping @Sendable () -> Date = { Date() }) {
        self.pins = pins
        self.now = now
    }

    public func send(_ request: TransportRequest, timeout: TimeInterval) async throws -> TransportResponse {
        guard request.url.scheme?.lowercased() == "https", let host = request.url.host, !host.isEmpty else {
            throw StorekeeperError(.configuration, "certificate pins need an https server URL")
        }
        let port = request.url.port ?? 443
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: TLSConfiguration.makeClientConfiguration())
        } catch {
            throw StorekeeperError(.configuration, "cannot set up TLS: \(error)")
        }
        let mismatch = NIOLockedValueBox(false)
        let group = MultiThreadedEventLoopGroup.singleton
        let answer = group.next().makePromise(of: TransportResponse.self)
        let parts = Self.parts(of: request, host: host, port: port)
        let pins = self.pins
        let now = self.now
        let limit = maximumBodySize
        let sniHost = Self.isIPAddress(host) ? nil : host
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.milliseconds(Int64(timeout * 1000)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let tls = try NIOSSLClientHandler(
                        context: context, serverHostname: sniHost,
                        customVerificationCallback: { certificates, verdict in
                            let chain = certificates.compactMap { try? $0.toDERBytes() }
                            if pins.matches(chain: chain, host: host, at: now()) {
                                verdict.succeed(.certificateVerified)
                            } else {
                                mismatch.withLockedValue { $0 = true }
                                verdict.succeed(.failed)
                            }
                        })
                    let operations = channel.pipeline.syncOperations
                    try operations.addHandler(tls)
                    try operations.addHTTPClientHandlers()
                    try operations.addHandler(NIOHTTPClientResponseAggregator(maxContentLength: limit))
                    try operations.addHandler(PinnedExchange(parts: parts, answer: answer))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            answer.fail(error)
            throw StorekeeperError(.network, "cannot connect to \(host):\(port): \(error)")
        }
        let deadline = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(timeout * 1000))) {
            answer.fail(StorekeeperError(.network, "no answer within \(timeout) s"))
        }
        defer {
            deadline.cancel()
            channel.close(promise: nil)
        }
        do {
            return try await answer.futureResult.get()
        } catch let error as StorekeeperError {
            throw mismatch.withLockedValue { $0 } ? Self.pinError(host) : error
        } catch {
            if mismatch.withLockedValue({ $0 }) { throw Self.pinError(host) }
            throw StorekeeperError(.network, "\(host):\(port): \(error)")
        }
    }

    static func pinError(_ host: String) -> StorekeeperError {
        StorekeeperError(.pinMismatch, "the certificate chain of \(host) does not lead to a pinned public key; nothing was sent")
    }

    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || (host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil })
    }

    static func parts(of request: TransportRequest, host: String, port: Int) -> [HTTPClientRequestPart] {
        var target = request.url.path.isEmpty ? "/" : request.url.path
        if let query = request.url.query { target += "?" + query }
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.method), uri: target)
        head.headers.add(name: "Host", value: port == 443 ? host : "\(host):\(port)")
        head.headers.add(name: "Connection", value: "close")
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) { head.headers.add(name: name, value: value) }
        head.headers.add(name: "Content-Length", value: String(request.body?.count ?? 0))
        var parts: [HTTPClientRequestPart] = [.head(head)]
        if let body = request.body, !body.isEmpty { parts.append(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
        parts.append(.end(nil))
        return parts
    }
}

/// Writes the request once the TLS handshake (and so the pin check) has passed, and hands
/// the aggregated answer over.
private final class PinnedExchange: ChannelInboundHandler {
    typealias InboundIn = NIOHTTPClientResponseFull
    typealias OutboundOut = HTTPClientRequestPart

    let parts: [HTTPClientRequestPart]
    let answer: EventLoopPromise<TransportResponse>

    init(parts: [HTTPClientRequestPart], answer: EventLoopPromise<TransportResponse>) {
        self.parts = parts
        self.answer = answer
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent {
            for part in parts { context.write(wrapOutboundOut(part), promise: nil) }
            context.flush()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let response = unwrapInboundIn(data)
        let body = response.body.map { Data($0.readableBytesView) } ?? Data()
        answer.succeed(TransportResponse(status: Int(response.head.status.code), body: body))
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        answer.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        answer.fail(StorekeeperError(.network, "the connection closed before an answer"))
        context.fireChannelInactive()
    }
}
#endif
