import AppStoreModels
import AppStoreServerAPI
import Foundation
import StorekeeperTestSupport
import Testing

@Suite("The live AsyncHTTPClient transport, against a loopback server")
struct AsyncHTTPClientTransportTests {
    struct Echo: Decodable {
        var method: String
        var path: String
        var headers: [String: String]
        var body: String
    }

    @Test("sends method, URL, headers and body and returns status, headers and body")
    func roundTrip() async throws {
        guard let server = try LoopbackEchoServer() else {
            print("no Python 3 for the loopback echo server; live transport test skipped")
            return
        }
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport()
        let request = HTTPRequestValue(
            method: "PUT", url: server.baseURL.appendingPathComponent("inApps/v1/x").appending(queryItems: [URLQueryItem(name: "a", value: "1")]),
            headers: [("Content-Type", "application/json"), ("X-Test", "yes")], body: Data(#"{"k":1}"#.utf8))
        let response = try await transport.send(request)
        #expect(response.status == 200)
        #expect(response.header("retry-after") == "5")
        let echo = try JSONDecoder().decode(Echo.self, from: response.body)
        #expect(echo.method == "PUT")
        #expect(echo.path == "/inApps/v1/x?a=1")
        #expect(echo.headers["x-test"] == "yes")
        #expect(echo.body == #"{"k":1}"#)

        let failed = try await transport.send(HTTPRequestValue(method: "GET", url: server.baseURL.appendingPathComponent("status/503")))
        #expect(failed.status == 503)
        #expect(!failed.isSuccess)
    }

    @Test("a response over the size limit and a refused connection throw")
    func failures() async throws {
        guard let server = try LoopbackEchoServer() else {
            print("no Python 3 for the loopback echo server; live transport test skipped")
            return
        }
        let transport = AsyncHTTPClientTransport(configuration: .init(timeout: .seconds(2), maximumResponseSize: 1 << 20))
        await #expect(throws: (any Error).self) {
            _ = try await transport.send(HTTPRequestValue(method: "GET", url: server.baseURL.appendingPathComponent("big")))
        }
        server.stop()
        // Not the stopped server's port: under a full test run another server may take it at once.
        let refusing = LoopbackPort.Refusing()
        await #expect(throws: (any Error).self) {
            _ = try await transport.send(HTTPRequestValue(method: "GET", url: URL(string: "http://127.0.0.1:\(refusing.port)/gone")!))
        }
        withExtendedLifetime(refusing) {}
    }

    @Test("the API client over the live transport reaches an overridden base URL and reads a live 429")
    func clientOverLiveTransport() async throws {
        guard let server = try LoopbackEchoServer() else {
            print("no Python 3 for the loopback echo server; live transport test skipped")
            return
        }
        defer { server.stop() }
        let key = try InAppPurchaseKey(keyId: "keyId", pem: Fixture.signingKeyPEM())
        let configuration = try AppStoreServerAPIClient.Configuration(
            key: key, issuerId: "issuer", bundleId: "com.example", environment: .localTesting, baseURL: server.baseURL,
            retryPolicy: .none)
        let client = AppStoreServerAPIClient(configuration: configuration, rateBudget: RateBudget())
        // The echo body is not a status response, but every field is optional: it decodes empty.
        _ = try await client.getAllSubscriptionStatuses(transactionId: "1", statuses: [.active])

        let limitedConfiguration = try AppStoreServerAPIClient.Configuration(
            key: key, issuerId: "issuer", bundleId: "com.example", environment: .localTesting,
            baseURL: server.baseURL.appendingPathComponent("status/429"), retryPolicy: .none)
        let limited = AppStoreServerAPIClient(configuration: limitedConfiguration, rateBudget: RateBudget())
        let error = try await #require(throws: AppStoreServerAPIError.self) {
            _ = try await limited.getTransactionInfo(transactionId: "1")
        }
        #expect(error.httpStatus == 429)
        #expect(error.retryAfter != nil)
        #expect(error.isRetryable)
    }
}
