import AppStoreTestSigning
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// One request of RevenueCat's iOS SDK snapshots (Fixtures/revenuecat-sdk).
struct RevenueCatSnapshot: Sendable {
    var name: String
    var method: String
    /// The path and query, without RevenueCat's host.
    var path: String
    var headers: [String: String]
    /// The body as JSON text, when there is one.
    var body: String?

    /// Every snapshot, in name order.
    static func all() throws -> [RevenueCatSnapshot] {
        let root = try #require(Bundle.module.resourceURL?.appendingPathComponent("Fixtures/revenuecat-sdk"))
        let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.allObjects as? [URL])
        return try files.filter { $0.pathExtension == "json" }.sorted { $0.path < $1.path }.map { file in
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
            let request = try #require(object?["request"] as? [String: Any])
            let url = try #require((request["url"] as? String).flatMap(URLComponents.init(string:)))
            let body = try (request["body"] as? [String: Any]).map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
            return RevenueCatSnapshot(
                name: file.deletingPathExtension().lastPathComponent, method: try #require(request["method"] as? String),
                path: url.percentEncodedPath + (url.percentEncodedQuery.map { "?" + $0 } ?? ""),
                headers: object?["headers"] as? [String: String] ?? [:], body: body)
        }
    }

    /// Sends the snapshot's request with the test app's SDK key (when it was authenticated) and
    /// `body` in place of its own.
    func send(_ client: some TestClientProtocol, body replaced: String? = nil) async throws -> (status: Int, json: [String: Any], text: String) {
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let field = HTTPField.Name(name) else { continue }
            fields[field] = name.lowercased() == "authorization" ? "Bearer \(RevenueCatSDKFixture.alphaSDKKey)" : value
        }
        let text = replaced ?? body
        let response = try await client.execute(
            uri: RevenueCatSDKFixture.prefix + path, method: HTTPRequest.Method(method) ?? .get, headers: fields,
            body: text.map { ByteBuffer(string: $0) })
        let answer = String(buffer: response.body)
        return (Int(response.status.code), (try? JSONSerialization.jsonObject(with: Data(answer.utf8))) as? [String: Any] ?? [:], answer)
    }
}

@Suite("RevenueCat SDK routes: the SDK's own requests, replayed")
struct RevenueCatSDKReplayTests {
    @Test("every snapshot request gets a body the SDK decodes, or a RevenueCat error; never a 500 or a foreign shape")
    func replayEverySnapshot() async throws {
        let snapshots = try RevenueCatSnapshot.all()
        #expect(snapshots.count > 150)
        try await ServerHarness.run(.memory, configure: RevenueCatSDKFixture.configure) { _, client in
            var answered: [String: Int] = [:]
            for snapshot in snapshots {
                let response = try await snapshot.send(client)
                answered[snapshot.method + " " + (snapshot.path.split(separator: "?").first.map(String.init) ?? "")] = response.status
                #expect(response.status != 500, "\(snapshot.name): \(response.text)")
                #expect(response.json.isEmpty == false || response.text == "{}", "\(snapshot.name): not a JSON object: \(response.text)")
                #expect(response.json["error"] == nil, "\(snapshot.name): Storekeeper's error shape: \(response.text)")
                if (200..<300).contains(response.status) {
                    let problems = RevenueCatSDKShapes.success(snapshot.method, snapshot.path, response.json)
                    #expect(problems.isEmpty, "\(snapshot.name): \(problems) in \(response.text)")
                } else {
                    let problems = RevenueCatSDKShapes.error(response.json)
                    #expect(problems.isEmpty, "\(snapshot.name) (\(response.status)): \(problems) in \(response.text)")
                }
            }
            // What the SDK needs to run answers a success.
            for route in [
                "GET /v1/subscribers/user", "GET /v1/subscribers/user/offerings", "POST /v1/subscribers/identify",
                "POST /v1/subscribers/user/intro_eligibility", "GET /v1/product_entitlement_mapping", "GET /v1/health",
                "POST /v1/subscribers/abc123/attributes", "POST /v1/offers", "GET /v1/subscribers/user/virtual_currencies",
            ] {
                #expect(answered[route].map { (200..<300).contains($0) } == true, "\(route): \(String(describing: answered[route]))")
            }
            // What Storekeeper does not serve is a clear RevenueCat error.
            for route in ["GET /v2/config", "POST /v1/subscribers/redeem_purchase", "GET /v1/customercenter/user", "POST /v1/diagnostics"] {
                #expect(answered[route] == 404, "\(route): \(String(describing: answered[route]))")
            }
        }
    }

    @Test("each posted receipt snapshot, its fetch token swapped for a genuine signed transaction, records the purchase")
    func receiptSnapshotsWithGenuineTokens() async throws {
        let snapshots = try RevenueCatSnapshot.all().filter { $0.path == "/v1/receipts" }
        #expect(snapshots.count > 30)
        try await ServerHarness.run(.memory, configure: RevenueCatSDKFixture.configure) { harness, client in
            let t0 = Fixture.t0
            for (index, snapshot) in snapshots.enumerated() {
                var body = try #require(try JSONSerialization.jsonObject(with: Data((snapshot.body ?? "{}").utf8)) as? [String: Any])
                let chain = "rc-replay-\(index)"
                let transaction = try SignedData.transaction(
                    id: chain, original: chain, purchase: t0 - 60, expires: t0 + 30 * Fixture.day, signed: t0)
                body["fetch_token"] = try harness.ca.signTransaction(transaction)
                body["app_user_id"] = "replayed-\(index)"
                let text = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
                let response = try await snapshot.send(client, body: text)
                #expect(response.status == 200, "\(snapshot.name): \(response.text)")
                #expect(RevenueCatSDKShapes.customerInfo(response.json).isEmpty, "\(snapshot.name): \(response.text)")
                let subscriber = response.json["subscriber"] as? [String: Any]
                let entitlement = (subscriber?["entitlements"] as? [String: Any])?["pro"] as? [String: Any]
                #expect(entitlement?["product_identifier"] as? String == "pro.monthly", "\(snapshot.name)")
            }
        }
    }
}
