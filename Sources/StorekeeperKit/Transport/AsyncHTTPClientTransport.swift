#if canImport(AsyncHTTPClient)
import AsyncHTTPClient
import Foundation
import NIOCore

/// The SDK's transport on Linux without pins: AsyncHTTPClient with the system's trust store.
public struct AsyncHTTPClientTransport: StorekeeperTransport {
    let client: HTTPClient
    /// The largest answer read.
    public var maximumBodySize = 8 << 20

    public init(client: HTTPClient = .shared) {
        self.client = client
    }

    public func send(_ request: TransportRequest, timeout: TimeInterval) async throws -> TransportResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = .init(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let response = try await client.execute(outgoing, timeout: .milliseconds(Int64(timeout * 1000)))
            let body = try await response.body.collect(upTo: maximumBodySize)
            return TransportResponse(status: Int(response.status.code), body: Data(body.readableBytesView))
        } catch {
            throw StorekeeperError(.network, "\(request.url.host ?? "the server"): \(error)")
        }
    }
}
#endif
