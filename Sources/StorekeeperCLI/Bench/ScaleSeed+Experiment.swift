import Foundation
import StorekeeperHTTP
import StorekeeperServer
import StorekeeperStore
import SubscriptionEngine

/// The seed's experiment, so `bench read` can time `GET /v1/apps/{app}/experiments/{id}/results`:
/// an offerings document with a paywall placement and a running A/B test of two offerings,
/// saved as the offerings API saves one (version 1, audited), and for one customer in ten an
/// enrolment in the variant the API would give them, an hour before their first purchase (the
/// experiment's audience is new customers: they saw the paywall, then bought).
///
/// The simulated customers buy what they buy whatever the variant, so the results show no
/// difference; they cost what real results cost: each enrolled customer's ledger is read.
/// The `experiment.enrolled` events the placements route also records are not written.
extension ScaleSeed {
    static let experimentId = "paywall-price"
    static let placementId = "paywall"
    /// Customers enrolled, in ten-thousandths (one in ten).
    static let enrolledShare = 1_000

    /// The experiment as saved, starting with the history.
    var experiment: OfferingsDocument.Experiment {
        OfferingsDocument.Experiment(
            id: Self.experimentId, placement: Self.placementId,
            variants: [
                OfferingsDocument.Variant(id: "control", offering: "monthly-first", percent: 50),
                OfferingsDocument.Variant(id: "yearly", offering: "yearly-first", percent: 50),
            ],
            audience: .newCustomers, startAt: end.addingTimeInterval(-days * 86_400))
    }

    /// The changeset that saves the offerings document as its first version, as `PUT
    /// /v1/apps/{appId}/offerings` does (checked the same way first).
    func offeringsChangeset(catalog: Set<String>) throws -> Changeset {
        let document = OfferingsDocument(
            offerings: [
                OfferingsDocument.Offering(
                    id: "monthly-first",
                    packages: [
                        OfferingsDocument.Package(id: "monthly", productId: "premium.monthly"),
                        OfferingsDocument.Package(id: "yearly", productId: "premium.yearly"),
                    ]),
                OfferingsDocument.Offering(
                    id: "yearly-first",
                    packages: [
                        OfferingsDocument.Package(id: "yearly", productId: "premium.yearly"),
                        OfferingsDocument.Package(id: "monthly", productId: "premium.monthly"),
                    ]),
            ],
            placements: [OfferingsDocument.Placement(id: Self.placementId, defaultOffering: "monthly-first")],
            experiments: [experiment])
        let problems = document.problems(catalogProducts: catalog)
        guard problems.isEmpty else { throw Failure(description: "the seed's offerings are refused: \(problems.joined(separator: "; "))") }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .timestamp
        let start = end.addingTimeInterval(-days * 86_400)
        let actor = "bench-seed"
        var changeset = Changeset(
            appId: Self.appId, at: start,
            audit: [AuditEntry(appId: Self.appId, actor: actor, action: .saveOfferings, reason: "bench seed", details: ["version": "1"], at: start)]
        )
        changeset.offeringVersion = NewOfferingVersion(
            document: String(decoding: try encoder.encode(document), as: UTF8.self), actor: actor, note: "bench seed", expectedVersion: 0)
        return changeset
    }

    /// Enrols one customer in ten of each changeset (by a hash of their id, so the choice does
    /// not depend on the slicing) in the variant the offerings API would give them, an hour
    /// before their first purchase; returns how many.
    func enrol(_ changesets: inout [Changeset], in experiment: OfferingsDocument.Experiment) -> Int {
        var enrolled = 0
        let start = experiment.startAt ?? .distantPast
        for index in changesets.indices {
            var firstPurchase: [String: Date] = [:]
            for entry in changesets[index].entries {
                guard case .purchase(let fact) = entry.fact, let customer = entry.customerId, fact.ownership == .purchased else { continue }
                firstPurchase[customer] = min(firstPurchase[customer] ?? fact.purchaseDate, fact.purchaseDate)
            }
            for (customer, first) in firstPurchase.sorted(by: { $0.key < $1.key })
            where ExperimentAssignment.bucket(experimentId: experiment.id + ".exposure", customerId: customer) < Self.enrolledShare {
                guard let variant = ExperimentAssignment.variant(of: experiment, customerId: customer) else { continue }
                changesets[index].enrolments.append(
                    ExperimentEnrolment(
                        appId: Self.appId, experimentId: experiment.id, customerId: customer, variant: variant.id,
                        enrolledAt: max(start, first.addingTimeInterval(-3_600))))
                enrolled += 1
            }
        }
        return enrolled
    }
}
