import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperStore

/// Offerings and experiments (admins): the document in force, editing it, its versions with
/// restore, and each experiment's results with a way to stop it and roll the winner out.
extension Dashboard {
    func addOfferingRoutes(to group: RouterGroup<APIRequestContext>) {
        group.get("apps/:appId/offerings", use: offeringsPage)
            .post("apps/:appId/offerings", use: saveOfferingsForm)
            .post("apps/:appId/offerings/versions/:version/restore", use: restoreOfferingsForm)
            .post("apps/:appId/experiments/:experimentId/stop", use: stopExperimentForm)
    }

    struct OfferingsModel {
        struct Version {
            var version: Int
            var actor: String
            var note: String
            var at: String
            var isCurrent: Bool
            var restoreAction: String
        }
        struct Experiment {
            struct Variant {
                var id: String
                var offering: String
                var exposed: Int
                var paying: Int
                var conversion: String
                var revenue: String
                var probabilityToBeBest: String
                var difference: String
            }
            var id: String
            var placement: String
            var status: String
            var winner: String?
            var isRunning: Bool
            var variants: [Variant]
            var stopAction: String
            var variantIds: [String]
        }
        var version: Int
        var document: String
        var saveAction: String
        var versions: [Version]
        var experiments: [Experiment]
        var currency: String
        var notice: String?
    }

    func offeringsPage(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try adminApp(context)
        let base = "/dashboard/apps/\(Self.pathComponent(app.id))"
        let (stored, document) = try await api.offerings(app: app)
        let days = DayFormat(timeZone: app.configuration.analytics.timeZone)
        let versions = try await store.offeringVersions(appId: app.id, limit: 50).map { version in
            OfferingsModel.Version(
                version: version.version, actor: version.actor, note: version.note ?? "", at: days.instant(version.createdAt),
                isCurrent: version.version == stored?.version, restoreAction: "\(base)/offerings/versions/\(version.version)/restore")
        }
        var experiments: [OfferingsModel.Experiment] = []
        for experiment in document.experiments {
            // While a large app's figures are being built the results are left out, not the page.
            let results: StorekeeperAPI.ExperimentResultsResponse?
            do {
                results = try await api.experimentResults(app: app, id: experiment.id, environment: nil)
            } catch is FiguresBuilding {
                results = nil
            }
            let variants = (results?.variants ?? []).enumerated().map { index, row in
                let comparison = results?.conversion[safe: index]
                return OfferingsModel.Experiment.Variant(
                    id: row.id, offering: row.offering, exposed: row.exposed, paying: row.payingCustomers,
                    conversion: row.exposed > 0 ? String(format: "%.1f%%", 100 * Double(row.payingCustomers) / Double(row.exposed)) : "–",
                    revenue: "\(row.revenuePerExposed["30d"] ?? 0)",
                    probabilityToBeBest: comparison.map { String(format: "%.1f%%", 100 * $0.probabilityToBeBest) } ?? "–",
                    difference: comparison.map { String(format: "%+.1f … %+.1f", 100 * $0.differenceLower, 100 * $0.differenceUpper) } ?? "–")
            }
            experiments.append(
                .init(
                    id: experiment.id, placement: experiment.placement, status: experiment.status.rawValue, winner: experiment.winner,
                    isRunning: experiment.status == .running, variants: variants,
                    stopAction: "\(base)/experiments/\(Self.pathComponent(experiment.id))/stop", variantIds: experiment.variants.map(\.id)))
        }
        let encoder = JSONEncoder.offerings(pretty: true)
        let model = OfferingsModel(
            version: stored?.version ?? 0, document: String(decoding: try encoder.encode(document), as: UTF8.self),
            saveAction: "\(base)/offerings", versions: versions, experiments: experiments,
            currency: app.configuration.analytics.reportingCurrency, notice: request.uri.queryParameters.get("saved").map { "Saved version \($0)." })
        return templates.page("offerings", title: "Offerings", frame: frame(visitor, app: app, section: "offerings"), page: model)
    }

    func saveOfferingsForm(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try adminApp(context)
        let form = try await Self.checkedForm(request, context, api: api)
        guard let text = form["document"], let expected = form["expectedVersion"].flatMap({ Int($0) }) else {
            throw DashboardError.badRequest("The form lacks the document or its version.")
        }
        let document: OfferingsDocument
        do {
            document = try JSONDecoder.offerings.decode(OfferingsDocument.self, from: Data(text.utf8))
        } catch {
            throw DashboardError.badRequest("The document is not valid offerings JSON: \(ConfigurationError.describe(error))")
        }
        let saved = try await api.save(
            document, app: app, actor: visitor.actor, note: form.text("note"), expectedVersion: expected, action: .saveOfferings)
        return Self.redirect(to: "/dashboard/apps/\(Self.pathComponent(app.id))/offerings?saved=\(saved.version)")
    }

    func restoreOfferingsForm(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try adminApp(context)
        _ = try await Self.checkedForm(request, context, api: api)
        guard let number = Int(try context.pathParameter("version")),
            let old = try await store.offeringVersion(appId: app.id, version: number)
        else { throw DashboardError.notFound }
        let document = try JSONDecoder.offerings.decode(OfferingsDocument.self, from: Data(old.document.utf8))
        let current = try await store.offeringVersion(appId: app.id, version: nil)?.version ?? 0
        let saved = try await api.save(
            document, app: app, actor: visitor.actor, note: "restored version \(number)", expectedVersion: current, action: .restoreOfferings)
        return Self.redirect(to: "/dashboard/apps/\(Self.pathComponent(app.id))/offerings?saved=\(saved.version)")
    }

    func stopExperimentForm(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try adminApp(context)
        let form = try await Self.checkedForm(request, context, api: api)
        guard let winner = form.text("winner") else { throw DashboardError.badRequest("Choose the variant to roll out.") }
        let saved = try await api.stopExperiment(id: try context.pathParameter("experimentId"), winner: winner, app: app, actor: visitor.actor)
        return Self.redirect(to: "/dashboard/apps/\(Self.pathComponent(app.id))/offerings?saved=\(saved.version)")
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
