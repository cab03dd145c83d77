import AppStoreModels
import AppStoreTestSigning
import Foundation
import HummingbirdTesting
import StorekeeperServer
import StorekeeperStore
import Testing

/// A subscription's life in signed V2 notifications: subscribe, fail to renew with grace,
/// recover, refund.
struct Lifecycle {
    let t0 = Fixture.t0
    let day = Fixture.day
    let token = "2a9d3c1e-1111-4222-8333-444455556666"

    /// The notification bodies in order, each with the instant to look at the state after it
    /// and the status expected then.
    func steps(_ ca: TestCertificateAuthority) throws -> [(body: String, lookAt: Date, expected: String)] {
        let firstEnd = t0 + 30 * day
        let tx1 = try SignedData.transaction(id: "1001", original: "1001", purchase: t0, expires: firstEnd, signed: t0, token: token)
        let subscribed = try SignedData.notification(
            ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", uuid: "00000000-0000-4000-8000-000000000001", signed: t0,
            transaction: tx1, renewal: try SignedData.renewal(original: "1001", autoRenew: true, signed: t0))
        let failed = try SignedData.notification(
            ca, type: "DID_FAIL_TO_RENEW", subtype: "GRACE_PERIOD", uuid: "00000000-0000-4000-8000-000000000002", signed: firstEnd,
            transaction: try SignedData.transaction(id: "1001", original: "1001", purchase: t0, expires: firstEnd, signed: firstEnd, token: token),
            renewal: try SignedData.renewal(original: "1001", autoRenew: true, billingRetry: true, grace: firstEnd + 16 * day, signed: firstEnd))
        let recoveredAt = firstEnd + 2 * day
        let tx2 = try SignedData.transaction(
            id: "1002", original: "1001", purchase: recoveredAt, expires: recoveredAt + 30 * day, signed: recoveredAt, token: token)
        let recovered = try SignedData.notification(
            ca, type: "DID_RENEW", subtype: "BILLING_RECOVERY", uuid: "00000000-0000-4000-8000-000000000003", signed: recoveredAt,
            transaction: tx2, renewal: try SignedData.renewal(original: "1001", autoRenew: true, signed: recoveredAt))
        let refundAt = recoveredAt + 5 * day
        let refunded = try SignedData.notification(
            ca, type: "REFUND", uuid: "00000000-0000-4000-8000-000000000004", signed: refundAt,
            transaction: try SignedData.transaction(
                id: "1002", original: "1001", purchase: recoveredAt, expires: recoveredAt + 30 * day, signed: refundAt, revoked: refundAt,
                token: token),
            renewal: nil)
        return [
            (subscribed, t0 + day, "active"),
            (failed, firstEnd + day, "gracePeriod"),
            (recovered, recoveredAt + day, "active"),
            (refunded, refundAt + day, "revoked"),
        ]
    }

    /// Links the customer through a purchase posted by the app (the first transaction).
    func link(_ client: some TestClientProtocol, _ ca: TestCertificateAuthority, app: String, key: String) async throws {
        let tx1 = try SignedData.transaction(id: "1001", original: "1001", purchase: t0, expires: t0 + 30 * day, signed: t0, token: token)
        let body = "{\"signedTransaction\": \"\(try ca.signTransaction(tx1))\"}"
        let response = try await client.call(.post, "/v1/apps/\(app)/customers/carol/purchases", key: key, body: body)
        #expect(response.status == 200)
    }
}

@Suite("Notifications end to end")
struct NotificationFlowTests {
    @Test(
        "signed V2 notifications drive a subscription through subscribe, grace, recovery and refund; forgeries and replays change nothing",
        arguments: ServerBackend.available)
    func lifecycle(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let life = Lifecycle()
            try await life.link(client, harness.ca, app: "alpha", key: Fixture.alphaKey)
            let steps = try life.steps(harness.ca)
            let forger = try TestCertificateAuthorityFactory.untrusted()
            let forgedRefund = try SignedData.notification(
                forger, type: "REFUND", signed: Fixture.t0 + Fixture.day,
                transaction: try SignedData.transaction(
                    id: "1001", original: "1001", purchase: Fixture.t0, expires: Fixture.t0 + 30 * Fixture.day, signed: Fixture.t0 + Fixture.day,
                    revoked: Fixture.t0 + Fixture.day),
                renewal: nil)
            for (index, step) in steps.enumerated() {
                harness.clock.set(step.lookAt - 3600)
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: step.body).status == 200)
                try await harness.processor.drain()
                harness.clock.set(step.lookAt)
                #expect(try await client.status("alpha", "1001", key: Fixture.alphaKey) == step.expected, "step \(index)")
                // A forged refund is turned away at the door; a replay of every notification so
                // far changes nothing.
                let refused = try await client.call(.post, "/v1/apps/alpha/notifications", body: forgedRefund)
                #expect(refused.status == 400)
                #expect((refused.json["error"] as? [String: Any])?["code"] as? String == "notification_refused")
                for earlier in steps[...index] {
                    #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: earlier.body).json["duplicate"] as? Bool == true)
                }
                try await harness.processor.drain()
                #expect(try await client.status("alpha", "1001", key: Fixture.alphaKey) == step.expected, "step \(index) after forgery and replays")
            }
            let customer = try await client.call(.get, "/v1/apps/alpha/customers/carol", key: Fixture.alphaKey)
            #expect((customer.json["subscriptions"] as? [[String: Any]])?.first?["status"] as? String == "revoked")
            #expect((customer.json["entitlements"] as? [[String: Any]])?.isEmpty == true)
            // Nothing unverifiable was stored: the inbox holds exactly the genuine notifications.
            let stored = try await client.call(.get, "/v1/apps/alpha/notifications", key: Fixture.alphaKey)
            #expect((stored.json["notifications"] as? [[String: Any]])?.count == steps.count)
            #expect((stored.json["notifications"] as? [[String: Any]])?.allSatisfy { $0["state"] as? String == "processed" } == true)
            let refunds = try await client.call(.get, "/v1/apps/alpha/notifications?originalTransactionId=1001&type=REFUND", key: Fixture.alphaKey)
            #expect((refunds.json["notifications"] as? [[String: Any]])?.count == 1)
            let events = try await client.call(.get, "/v1/apps/alpha/customers/carol/events", key: Fixture.alphaKey)
            let changes = (events.json["events"] as? [[String: Any]])?.filter { $0["type"] as? String == "subscription.status_changed" }
                .compactMap { ($0["details"] as? [String: Any])?["to"] as? String }
            #expect(changes?.last == "revoked")
            // Each fact keeps its own signed data (the transaction's or the renewal info's JWS),
            // not another copy of the notification, which stays in the inbox.
            let facts = try await harness.store.ledger(appId: "alpha", originalTransactionId: "1001").filter { $0.source == .notificationV2 }
            #expect(facts.count >= 4)
            for entry in facts {
                let payload = try #require(entry.raw.flatMap(Self.payload(ofJWS:)), "\(entry.fact.kind)")
                #expect(payload["notificationType"] == nil)
                switch entry.fact {
                case .purchase: #expect(payload["transactionId"] != nil)
                case .renewal: #expect(payload["autoRenewStatus"] != nil)
                case .revocation: Issue.record("a notification recorded a manual revocation")
                }
            }
        }
    }

    /// The decoded payload of a compact JWS.
    static func payload(ofJWS jws: String) -> [String: Any]? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }

    @Test(
        "a stored notification names its chain before it is processed, so workers take one chain's rows in order", arguments: ServerBackend.available)
    func chainNamedAtTheDoor(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let crowd = try Self.crowd(harness.ca)
            for step in crowd[0].steps + crowd[1].steps.prefix(1) {
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: step).status == 200)
            }
            let first = try await harness.store.notifications(appId: "alpha", filter: NotificationFilter(originalTransactionId: "77100"))
            #expect(first.count == crowd[0].steps.count)
            #expect(first.allSatisfy { $0.state == .pending })
            // Two workers: the second gets the other chain's row, not the first chain's next one.
            let lease = Fixture.t0.addingTimeInterval(60)
            let one = try await harness.store.claimPending(limit: 1, owner: "w1", now: Fixture.t0, leaseUntil: lease)
            let two = try await harness.store.claimPending(limit: 10, owner: "w2", now: Fixture.t0, leaseUntil: lease)
            #expect(one.map(\.metadata?.originalTransactionId) == ["77100"])
            #expect(two.map(\.metadata?.originalTransactionId) == ["77101"])
        }
    }

    @Test("a storm of duplicated, shuffled notifications ends in the same state as in-order delivery", arguments: ServerBackend.available)
    func storm(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let life = Lifecycle()
            let steps = try life.steps(harness.ca)
            try await life.link(client, harness.ca, app: "alpha", key: Fixture.alphaKey)
            try await life.link(client, harness.ca, app: "gamma", key: Fixture.gammaKey)
            for step in steps {
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: step.body).status == 200)
                try await harness.processor.drain()
            }
            var generator = SplitMix64(seed: 0x5EED)
            let storm = (steps + steps + steps.prefix(2)).map(\.body).shuffled(using: &generator)
            try await withThrowingTaskGroup(of: Int.self) { group in
                for body in storm {
                    group.addTask { try await client.call(.post, "/v1/apps/gamma/notifications", body: body).status }
                }
                for try await status in group { #expect(status == 200) }
            }
            try await harness.processor.drain()
            for instant in steps.map(\.lookAt) + [Fixture.t0 + 400 * Fixture.day] {
                harness.clock.set(instant)
                let inOrder = try await client.call(.get, "/v1/apps/alpha/customers/carol", key: Fixture.alphaKey)
                let stormed = try await client.call(.get, "/v1/apps/gamma/customers/carol", key: Fixture.gammaKey)
                #expect(inOrder.status == 200)
                #expect(inOrder.text == stormed.text)
            }
            let processed = try await harness.store.notifications(appId: "gamma", filter: NotificationFilter(state: .processed))
            #expect(processed.count == steps.count)
        }
    }
}

extension NotificationFlowTests {
    /// Twelve customers' subscriptions: subscribed, renewed, and every third one refunded.
    static func crowd(_ ca: TestCertificateAuthority) throws -> [(customer: String, token: String, purchase: String, steps: [String])] {
        let (t0, day) = (Fixture.t0, Fixture.day)
        return try (0..<12).map { index in
            let chain = "77\(100 + index)"
            let token = String(format: "2a9d3c1e-1111-4222-8333-4444555566%02d", index)
            let first = try SignedData.transaction(id: chain, original: chain, purchase: t0, expires: t0 + 30 * day, signed: t0, token: token)
            let renewedAt = t0 + 30 * day
            let second = try SignedData.transaction(
                id: "\(chain)2", original: chain, purchase: renewedAt, expires: renewedAt + 30 * day, signed: renewedAt, token: token)
            var steps = [
                try SignedData.notification(
                    ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: t0, transaction: first,
                    renewal: try SignedData.renewal(original: chain, autoRenew: true, signed: t0)),
                try SignedData.notification(
                    ca, type: "DID_RENEW", signed: renewedAt, transaction: second,
                    renewal: try SignedData.renewal(original: chain, autoRenew: true, signed: renewedAt)),
            ]
            if index % 3 == 0 {
                let refundAt = renewedAt + 4 * day
                steps.append(
                    try SignedData.notification(
                        ca, type: "REFUND", signed: refundAt,
                        transaction: try SignedData.transaction(
                            id: "\(chain)2", original: chain, purchase: renewedAt, expires: renewedAt + 30 * day, signed: refundAt,
                            revoked: refundAt, token: token),
                        renewal: nil))
            }
            return ("crowd-\(index)", token, "{\"signedTransaction\": \"\(try ca.signTransaction(first))\"}", steps)
        }
    }

    /// With batches of 5, each chain's later notifications are in later batches, claimed and
    /// verified while the batch before them is being written.
    @Test(
        "many customers' notifications processed in one batch, or in batches claimed one ahead, end exactly as one at a time",
        arguments: ServerBackend.available, [32, 5])
    func batchEqualsOneAtATime(backend: ServerBackend, batchSize: Int) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let crowd = try Self.crowd(harness.ca)
            for member in crowd {
                for (app, key) in [("alpha", Fixture.alphaKey), ("gamma", Fixture.gammaKey)] {
                    let posted = try await client.call(
                        .post, "/v1/apps/\(app)/customers/\(member.customer)/purchases", key: key, body: member.purchase)
                    #expect(posted.status == 200)
                }
            }
            // alpha: one notification at a time; gamma: all of them, each step of every customer
            // in turn, then one drain (one batch, cut into runs of different chains).
            for member in crowd {
                for step in member.steps {
                    #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: step).status == 200)
                    try await harness.processor.drain()
                }
            }
            for step in 0..<3 {
                for member in crowd where step < member.steps.count {
                    #expect(try await client.call(.post, "/v1/apps/gamma/notifications", body: member.steps[step]).status == 200)
                }
            }
            #expect(try await harness.processor.drain(batchSize: batchSize) == crowd.map(\.steps.count).reduce(0, +))
            for instant in [Fixture.t0 + Fixture.day, Fixture.t0 + 31 * Fixture.day, Fixture.t0 + 40 * Fixture.day] {
                harness.clock.set(instant)
                for member in crowd {
                    let one = try await client.call(.get, "/v1/apps/alpha/customers/\(member.customer)", key: Fixture.alphaKey)
                    let batched = try await client.call(.get, "/v1/apps/gamma/customers/\(member.customer)", key: Fixture.gammaKey)
                    #expect(one.status == 200)
                    #expect(one.text == batched.text, "\(member.customer) at \(instant)")
                }
            }
            for member in crowd {
                func types(_ app: String, _ key: String) async throws -> [String] {
                    let events = try await client.call(.get, "/v1/apps/\(app)/customers/\(member.customer)/events?limit=1000", key: key)
                    return ((events.json["events"] as? [[String: Any]]) ?? []).compactMap { $0["type"] as? String }.sorted()
                }
                let one = try await types("alpha", Fixture.alphaKey)
                #expect(one.contains("subscription.status_changed"))
                #expect(one == (try await types("gamma", Fixture.gammaKey)), "\(member.customer)")
            }
            let total = crowd.map(\.steps.count).reduce(0, +)
            for app in ["alpha", "gamma"] {
                let processed = try await harness.store.notifications(appId: app, filter: NotificationFilter(state: .processed, limit: 1000))
                #expect(processed.count == total)
            }
        }
    }

    @Test("with a gather time, a batch that was not full is followed by one taken no sooner: rows that arrive meanwhile join the drain")
    func gatherFillsTheNextBatch() async throws {
        try await ServerHarness.run(.sqlite) { harness, client in
            let crowd = try Self.crowd(harness.ca)
            let first = crowd.prefix(3).map { $0.steps[0] }
            let late = crowd.dropFirst(3).prefix(2).map { $0.steps[0] }
            let posting = ContinuousClock.now
            for step in first {
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: step).status == 200)
            }
            // Long enough for the two late POSTs: 1.5 s, or twenty POSTs at the pace just measured
            // when the machine is that slow.
            let gather = max(.milliseconds(1500), posting.duration(to: .now) / first.count * 20)
            let processor = harness.processor
            let draining = Task { try await processor.drain(batchSize: 8, gather: gather) }
            try await Task.sleep(for: .milliseconds(300))
            for step in late {
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: step).status == 200)
            }
            // The batch of three was not full: the next claim waited, and took the two late rows.
            #expect(try await draining.value == first.count + late.count)
            #expect(try await harness.processor.drain() == 0)
        }
    }
}
