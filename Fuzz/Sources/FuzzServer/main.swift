// libFuzzer target for the bodies the server reads from the network: the V1 and V2
// notification bodies posted to an app's notification URL (no key) and the JSON bodies of
// the key-protected API, each through the real application (router, middleware, handlers)
// on an in-memory store.
//
// The first byte of each input picks the route (see `routes`, and `FUZZ_SERVER_ROUTES` to fuzz
// some of them only); the rest is the body.
// A crash, a hang, or any answer of 500 or above is a finding: bad input must get a 4xx.
import AppStoreModels
import AppStoreTestSigning
import Dispatch
import Foundation
import FuzzerSupport
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import StorekeeperServer
import StorekeeperStore
import SubscriptionEngine

let appId = "fuzz"
let bundleId = "com.example.fuzz"
let appKey = "fuzz-app-key-0123456789"
let adminKey = "fuzz-admin-key-0123456789"
let fixedNow = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
let authority = try! TestCertificateAuthority.generate(notBefore: fixedNow - 365 * 86_400, notAfter: fixedNow + 365 * 86_400)
let rootPath = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-server-root-\(getpid()).der").path
try! authority.rootCertificateDER.write(to: URL(fileURLWithPath: rootPath))

/// A route and the key it is called with.
struct Route: Sendable {
    var method: HTTPRequest.Method
    var path: String
    var key: String?
}

let routes: [Route] = [
    Route(method: .post, path: "/v1/apps/\(appId)/notifications", key: nil),
    Route(method: .post, path: "/verifyReceipt", key: nil),
    Route(method: .post, path: "/v1/apps/\(appId)/customers/c1/purchases", key: appKey),
    Route(method: .post, path: "/v1/apps/\(appId)/customers/c1/grants", key: adminKey),
    Route(method: .post, path: "/v1/apps/\(appId)/customers/c1/problems", key: appKey),
    Route(method: .post, path: "/v1/apps/\(appId)/customers/c1/tokens", key: appKey),
    Route(method: .post, path: "/v1/apps/\(appId)/offers/sign", key: appKey),
    Route(method: .put, path: "/v1/apps/\(appId)/webhooks/w1", key: adminKey),
    Route(method: .put, path: "/v1/apps/\(appId)/subscriptions/1000000000000001/appAccountToken", key: adminKey),
    Route(method: .post, path: "/v1/apps/\(appId)/subscriptions/1000000000000001/extend", key: adminKey),
    Route(method: .post, path: "/v1/apps/\(appId)/notifications/test", key: adminKey),
    Route(method: .post, path: "/dashboard/sign-in", key: nil),
]

func makeApplication() async throws -> some ApplicationProtocol {
    var logger = Logger(label: "fuzz")
    logger.logLevel = .critical
    let configuration = ServerConfiguration(
        apps: [
            AppConfiguration(
                id: appId, bundleId: bundleId, environments: [.sandbox], trustedRoots: [rootPath], sharedSecret: "fuzz-shared-secret",
                apiKeys: [APIKeyConfiguration(key: appKey, role: .app), APIKeyConfiguration(key: adminKey, role: .admin)],
                products: [
                    CatalogProduct(
                        productId: "fuzz.monthly", type: .autoRenewable, subscriptionGroupIdentifier: "fuzz", entitlements: ["pro"])
                ])
        ],
        logLevel: "critical")
    let store = InMemoryStore()
    try await store.migrate()
    return try buildApplication(
        configuration: configuration,
        dependencies: ServerDependencies(store: store, clock: { fixedNow }, logger: logger, runsInboxWorker: false))
}

/// One request handed from libFuzzer's thread to the application's task.
struct Call: Sendable {
    var route: Route
    var body: ByteBuffer
    var answer: @Sendable (UInt16) -> Void
}

let (calls, callQueue) = AsyncStream.makeStream(of: Call.self)

/// The calls' iterator, used by the one serving task only.
final class CallSource: @unchecked Sendable {
    var iterator: AsyncStream<Call>.Iterator
    init(_ stream: AsyncStream<Call>) { iterator = stream.makeAsyncIterator() }
    func next() async -> Call? { await iterator.next() }
}

/// Serves calls through a fresh application (and store) every `resetEvery` calls
/// (`FUZZ_SERVER_RESET` to change it), so what
/// the fuzzer manages to store never piles up (the in-memory store's reads grow with it). An
/// application hands over to the next as soon as it has served its share; its shutdown goes on
/// beside the next one.
let resetEvery = ProcessInfo.processInfo.environment["FUZZ_SERVER_RESET"].flatMap(Int.init) ?? 20_000
Task.detached {
    let source = CallSource(calls)
    while true {
        let app = try await makeApplication()
        let (served, done) = AsyncStream.makeStream(of: Void.self)
        Task.detached {
            try await app.test(.router) { client in
                defer { done.finish() }
                for _ in 0..<resetEvery {
                    guard let call = await source.next() else { return }
                    var headers = HTTPFields()
                    headers[.contentType] = call.route.path.hasPrefix("/dashboard") ? "application/x-www-form-urlencoded" : "application/json"
                    if let key = call.route.key { headers[.authorization] = "Bearer \(key)" }
                    let status = try await client.execute(uri: call.route.path, method: call.route.method, headers: headers, body: call.body) {
                        $0.status.code
                    }
                    call.answer(UInt16(status))
                }
            }
        }
        for await _ in served {}
    }
}

/// `FUZZ_SERVER_TRACE=1` prints each call's route and answer (to read a finding or a seed).
let trace = ProcessInfo.processInfo.environment["FUZZ_SERVER_TRACE"] != nil

/// Carries the answer from the application's task to the waiting thread; the semaphore orders
/// the accesses.
final class StatusBox: @unchecked Sendable {
    var value: UInt16 = 0
}

/// The routes fuzzed: all of them, or those whose indices in `routes` `FUZZ_SERVER_ROUTES` lists
/// (comma-separated; `0` is the notification URL alone), so one route can have a run of its own.
let fuzzed: [Route] = {
    guard let list = ProcessInfo.processInfo.environment["FUZZ_SERVER_ROUTES"] else { return routes }
    let chosen = list.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    guard !chosen.isEmpty, chosen.allSatisfy(routes.indices.contains) else {
        fatalError("FUZZ_SERVER_ROUTES lists indices of routes, 0 to \(routes.count - 1), comma-separated")
    }
    return chosen.map { routes[$0] }
}()

let callback: FuzzCallback = { bytes, count in
    guard let bytes, count > 0 else { return 0 }
    let route = fuzzed[Int(bytes[0]) % fuzzed.count]
    let body = ByteBuffer(bytes: UnsafeBufferPointer(start: bytes + 1, count: count - 1))
    let semaphore = DispatchSemaphore(value: 0)
    let status = StatusBox()
    callQueue.yield(
        Call(route: route, body: body) { code in
            status.value = code
            semaphore.signal()
        })
    semaphore.wait()
    if trace { print("\(route.method) \(route.path): \(status.value)") }
    if status.value >= 500 {
        fatalError("\(route.method) \(route.path) answered \(status.value) to a \(count - 1)-byte body")
    }
    return 0
}

runFuzzer(callback)
