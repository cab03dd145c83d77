import AppStoreModels
import AppStoreServerAPI
import AppStoreServerAPITesting
import Crypto
import Foundation
import Testing

@Suite("Every endpoint: request shape and response decoding")
struct EndpointRequestTests {
    @Test("sends Apple's method, path, query, body and headers and returns the decoded fixture", arguments: EndpointCases.all)
    func endpoint(_ endpoint: EndpointCase) async throws {
        let harness = try ClientHarness()
        let responseBody = try endpoint.fixture.map(Fixture.model) ?? Data()
        await harness.transport.expect(
            endpoint.method, endpoint.path,
            respond: endpoint.fixture == nil ? HTTPResponseValue(status: 200) : .json(200, data: responseBody))

        let returned = try await endpoint.call(harness.client)

        let requests = await harness.transport.requests
        let request = try #require(requests.first)
        #expect(requests.count == 1)
        #expect(request.method == endpoint.method)
        #expect(request.url.host == "api.storekit.apple.com")
        #expect(request.url.scheme == "https")
        #expect(request.url.path == endpoint.path)
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery
        #expect(query == endpoint.query)
        if let expectedBody = endpoint.body {
            let sent = try #require(request.body)
            #expect(try jsonObject(sent) == jsonObject(Data(expectedBody.utf8)))
        } else if let rawBody = endpoint.rawBody {
            #expect(request.body == rawBody)
        } else {
            #expect(request.body == nil)
        }
        #expect(request.header("Content-Type") == endpoint.contentType)
        #expect(request.header("Accept") == "application/json")
        #expect(request.header("User-Agent") == "storekeeper/1")

        let authorization = try #require(request.header("Authorization"))
        #expect(authorization.hasPrefix("Bearer "))
        let token = try DecodedJWT(String(authorization.dropFirst("Bearer ".count)))
        #expect(token.claims["aud"] as? String == "appstoreconnect-v1")
        #expect(token.claims["bid"] as? String == ClientHarness.bundleId)
        #expect(token.claims["iss"] as? String == ClientHarness.issuerId)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: token.signature)
        #expect(harness.key.publicKey.isValidSignature(signature, for: Data(token.signingInput.utf8)))

        if let expected = endpoint.expected {
            let value = try #require(returned)
            #expect(try jsonObject(value) == jsonObject(expected(responseBody)))
            #expect(responseBody.count > 2)
        } else {
            #expect(returned == nil)
        }
        #expect(await harness.transport.failures.isEmpty)
    }

    @Test("the endpoint table covers every endpoint the client knows")
    func coverage() {
        let covered = Set(EndpointCases.all.map { $0.name.split(separator: " ").first.map(String.init) ?? $0.name })
        let known = Set(APIEndpoint.all.map(\.name))
        #expect(known.subtracting(covered).isEmpty, "untested endpoints: \(known.subtracting(covered).sorted())")
    }

    @Test("a sandbox client talks to Apple's sandbox host and an overridden base URL wins")
    func hosts() async throws {
        let sandbox = try ClientHarness(environment: .sandbox)
        await sandbox.transport.expect("GET", "/inApps/v1/transactions/1", respond: .json(200, "{}"))
        _ = try await sandbox.client.getTransactionInfo(transactionId: "1")
        #expect(await sandbox.transport.requests.first?.url.host == "api.storekit-sandbox.apple.com")

        let simulator = try ClientHarness(environment: .localTesting, baseURL: URL(string: "http://127.0.0.1:8089/apple/")!)
        await simulator.transport.expect("GET", "/apple/inApps/v1/transactions/1", respond: .json(200, "{}"))
        _ = try await simulator.client.getTransactionInfo(transactionId: "1")
        #expect(await simulator.transport.requests.first?.url.absoluteString == "http://127.0.0.1:8089/apple/inApps/v1/transactions/1")
    }

    @Test("an environment without an Apple host needs a base URL")
    func localTestingNeedsBaseURL() throws {
        let key = try InAppPurchaseKey(keyId: "k", pem: Fixture.signingKeyPEM())
        #expect(throws: AppStoreServerAPIError.self) {
            _ = try AppStoreServerAPIClient.Configuration(key: key, issuerId: "i", bundleId: "b", environment: .xcode)
        }
    }

    @Test("path values are escaped as single segments")
    func escapesPathSegments() async throws {
        let harness = try ClientHarness()
        await harness.transport.expect("GET", "/inApps/v1/lookup/a/b?c", respond: .json(200, "{}"))
        _ = try await harness.client.lookUpOrderId(orderId: "a/b?c")
        let url = try #require(await harness.transport.requests.first?.url)
        #expect(url.absoluteString.hasSuffix("/inApps/v1/lookup/a%2Fb%3Fc"))
    }

    @Test("a 2xx body that is not the documented JSON is a malformedResponse error, not retried")
    func malformedSuccessBody() async throws {
        let harness = try ClientHarness()
        await harness.transport.expect("GET", "/inApps/v1/transactions/1", respond: .json(200, "not json"))
        let error = try await #require(throws: AppStoreServerAPIError.self) {
            _ = try await harness.client.getTransactionInfo(transactionId: "1")
        }
        #expect(error.code == .malformedResponse)
        #expect(await harness.transport.requests.count == 1)
    }
}
