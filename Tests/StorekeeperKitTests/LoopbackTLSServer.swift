import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A TLS server on 127.0.0.1 that presents the chain it is given (its key the first
/// certificate's), keeps every byte a client sends after the handshake, and answers each
/// request `200 {}`: what a man in the middle, or a properly chained server, looks like to the
/// SDK.
final class LoopbackTLSServer: Sendable {
    struct Record {
        var received: [UInt8] = []
        var closedConnections = 0
    }

    /// The record, shared with the connections' handlers.
    final class Recording: Sendable {
        let state = Mutex(Record())
    }

    let recording: Recording
    let channel: any Channel

    var port: Int { channel.localAddress?.port ?? 0 }
    var url: URL { URL(string: "https://127.0.0.1:\(port)")! }

    /// What clients sent over TLS, as text.
    var received: String { String(decoding: recording.state.withLock { $0.received }, as: UTF8.self) }

    init(chain: [[UInt8]], privateKeyPEM: String) async throws {
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try chain.map { .certificate(try NIOSSLCertificate(bytes: $0, format: .der)) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)))
        let context = try NIOSSLContext(configuration: configuration)
        let recording = Recording()
        self.recording = recording
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.addHandler(Recorder(recording: recording))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    /// Waits until `count` connections have ended (at most a minute).
    func waitForClosedConnections(_ count: Int) async throws {
        for _ in 0..<3000 where recording.state.withLock({ $0.closedConnections }) < count {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func close() async {
        try? await channel.close()
    }

    /// Keeps what arrives and answers each request head.
    private final class Recorder: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        let recording: Recording

        init(recording: Recording) {
            self.recording = recording
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = Array(unwrapInboundIn(data).readableBytesView)
            let complete = recording.state.withLock { record in
                record.received += bytes
                return String(decoding: record.received, as: UTF8.self).hasSuffix("\r\n\r\n")
            }
            guard complete else { return }
            let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: answer)), promise: nil)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            recording.state.withLock { $0.closedConnections += 1 }
            context.fireChannelInactive()
        }
    }
}
