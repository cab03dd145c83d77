import AppStoreServerAPI
import AppStoreVerification
import Foundation
import StorekeeperApps

/// What the running server (`--server`) says about one app: whether the test notification Apple
/// delivered reached it, and which products the transactions it knows hold at Apple.
struct ServerCheck: Sendable {
    let app: AppConfiguration
    let server: URL
    let doctor: Doctor

    /// The server's notification rows, or the finding that says why they cannot be read.
    enum Listing {
        case rows([[String: Any]])
        case failure(DoctorFinding)
    }

    /// How many of the server's original transactions are looked up at Apple.
    static let sampledTransactions = 10

    /// Whether the server's inbox holds the test notification `uuid` Apple says it delivered.
    func receivedTestNotification(uuid: String) async -> [DoctorFinding] {
        let answer = await notifications(query: "type=TEST&limit=50")
        var findings = await doctor.skewFindings(of: server, name: "the server", app: app.id)
        switch answer {
        case .failure(let finding):
            findings.append(finding)
        case .rows(let rows):
            if rows.contains(where: { $0["notificationUUID"] as? String == uuid }) {
                findings.append(
                    .ok(.serverReceivedTestNotification, app: app.id, "the server at \(server.absoluteString) received Apple's test notification"))
            } else {
                findings.append(
                    .error(
                        .notificationDeliveredElsewhere, app: app.id,
                        "Apple delivered the test notification \(uuid), but the server at \(server.absoluteString) did not receive it: the notification URL names another server",
                        todo: "Set the notification URL in App Store Connect to this server's https://…/v1/apps/\(app.id)/notifications."))
            }
        }
        return findings
    }

    /// The products of the server's transactions as Apple reports them, against the catalog.
    func productFindings(client: AppStoreServerAPIClient, verifier: SignedDataVerifier?) async -> [DoctorFinding] {
        let rows: [[String: Any]]
        switch await notifications(query: "limit=500") {
        case .failure(let finding): return [finding]
        case .rows(let found): rows = found
        }
        var chains: [String] = []
        for case let id as String in rows.map({ $0["originalTransactionId"] }) where !chains.contains(id) {
            chains.append(id)
            if chains.count == Self.sampledTransactions { break }
        }
        guard !chains.isEmpty, let verifier else {
            return [
                .info(
                    .productsUnverifiable, app: app.id, "the server knows no transaction yet, so the products Apple knows cannot be told",
                    todo: "Run again after the first purchase reached the server.")
            ]
        }
        var seen = Set<String>()
        for chain in chains {
            guard let history = try? await client.getTransactionHistory(transactionId: chain) else { continue }
            for signed in history.signedTransactions ?? [] {
                if let productId = await verifier.verifyAndDecodeTransaction(signed, now: doctor.now()).payload?.productId {
                    seen.insert(productId)
                }
            }
        }
        let configured = Set(app.products.map(\.productId))
        var findings: [DoctorFinding] = []
        for productId in seen.subtracting(configured).sorted() {
            findings.append(
                .warning(
                    .productUnknown, app: app.id,
                    "Apple reports transactions of \(productId), which the catalog lacks: the server refuses them at intake",
                    todo: "Add \(productId) to the app's products (its type, and group and entitlements for a subscription) and restart the server."))
        }
        for productId in configured.subtracting(seen).sorted() {
            findings.append(
                .info(
                    .productNotSeen, app: app.id, "no transaction of \(productId) among the \(chains.count) Apple was asked about",
                    todo: "Nothing, if nobody bought it yet; otherwise check the product id against App Store Connect."))
        }
        if seen.isSubset(of: configured) {
            findings.insert(
                .ok(
                    .productsKnown, app: app.id,
                    "every product Apple reports for the server's transactions (\(seen.sorted().joined(separator: ", "))) is in the catalog"),
                at: 0)
        }
        return findings
    }

    /// The server's notification rows for the app (`GET /v1/apps/{app}/notifications?query`), or
    /// the finding that says why they cannot be read.
    func notifications(query: String) async -> Listing {
        guard let key = app.apiKeys.first(where: { $0.role == .app }) ?? app.apiKeys.first else {
            return .failure(
                .warning(
                    .serverNoAPIKey, app: app.id, "the configuration holds no API key of the app to ask the server with",
                    todo: "Add an app key to apiKeys (or STOREKEEPER_APP_<ID>_API_KEY) so the server can be checked."))
        }
        var path = server.absoluteString
        while path.hasSuffix("/") { path.removeLast() }
        guard let url = URL(string: "\(path)/v1/apps/\(app.id)/notifications?\(query)") else {
            return .failure(.error(.serverUnreachable, app: app.id, "--server \(server) is not a URL", todo: "Pass --server as http(s)://host:port."))
        }
        let response: HTTPResponseValue
        do {
            response = try await doctor.transport.send(
                HTTPRequestValue(method: "GET", url: url, headers: [("Authorization", "Bearer \(key.key)"), ("Accept", "application/json")]))
        } catch {
            return .failure(
                .error(
                    .serverUnreachable, app: app.id, "no answer from the server at \(server.absoluteString)",
                    todo: "Start the server (`storekeeper serve --config …`) or fix --server to its address."))
        }
        guard response.isSuccess else {
            if response.status == 401 || response.status == 403 {
                return .failure(
                    .error(
                        .serverKeyRejected, app: app.id, "the server at \(server.absoluteString) refused the app's API key (HTTP \(response.status))",
                        todo: "Run the server with this configuration, or check --server names the server this configuration belongs to."))
            }
            return .failure(
                .error(
                    .serverUnreachable, app: app.id,
                    "the server at \(server.absoluteString) answered HTTP \(response.status) to the notification listing",
                    todo: "Read the server's log; check --server names a Storekeeper server and the app \(app.id) is configured there."))
        }
        let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
        return .rows(object?["notifications"] as? [[String: Any]] ?? [])
    }
}
