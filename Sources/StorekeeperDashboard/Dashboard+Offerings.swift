import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperHTTP
import StorekeeperStore

/// Offerings and experiments (admins): the document in force, editing it, its versions with
/// restore, and each experiment's results with a way to stop it and roll the winner out.
extension Dashboard {
    package func addOfferingRoutes(to group: RouterGroup<APIRequestContext>) {
        group.get("apps/:appId/offerings", use: offeringsPage)
            .post("apps/:appId/offerings", use: saveOfferingsForm)
            .post("apps/:appId/offerings/versions/:version/restore", use: restoreOfferingsForm)
            .post("apps/:appId/experiments/:experimentId/stop", use: stopExperimentForm)
    }

    package struct OfferingsModel {
        package struct Version {
            package var version: Int
            package var actor: String
            package var note: String
            package var at: String
            package var isCurrent: Bool
            package var restoreAction: String
        }
        package struct Experiment {
            package struct Variant {
                package var id: String
                package var offering: String
                package var exposed: Int
                package var paying: Int
                package var conversion: String
                package var revenue: String
                package var probabilityToBeBest: String
                package var difference: String
                /// Retention placements: saved of decided, and how many are still pending.
                package var saves: String
            }
            package var id: String
            package var placement: String
            /// A retention placement's experiment: P(best) and the difference are of saves.
            package var isRetention: Bool
            package var status: String
            package var winner: String?
            package var isRunning: Bool
            package var variants: [Variant]
            package var stopAction: String
            package var variantIds: [String]
        }
        package var version: Int
        package var document: String
        package var saveAction: String
        package var versions: [Version]
        package var experiments: [Experiment]
        package var currency: String
        package var notice: String?
    }

    package func offeringsPage(_ request: Request, _ context: APIRequestContext) async throws -> Response {
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
            let isRetention = results?.saves != nil
            let variants = (results?.variants ?? []).enumerated().map { index, row in
                let comparison = (results?.saves ?? results?.conversion)?[safe: index]
                return OfferingsModel.Experiment.Variant(
                    id: row.id, offering: row.offering, exposed: row.exposed, paying: row.payingCustomers,
                    conversion: row.exposed > 0 ? String(format: "%.1f%%", 100 * Double(row.payingCustomers) / Double(row.exposed)) : "–",
                    revenue: "\(row.revenuePerExposed["30d"] ?? 0)",
                    probabilityToBeBest: comparison.map { String(format: "%.1f%%", 100 * $0.probabilityToBeBest) } ?? "–",
                    difference: comparison.map { String(format: "%+.1f … %+.1f", 100 * $0.differenceLower, 100 * $0.differenceUpper) } ?? "–",
                    saves: row.retention.map { saves in
                        "\(saves.saved) of \(saves.decided)" + (saves.saveRate.map { String(format: " (%.1f%%)", 100 * $0) } ?? "")
                            + (saves.pending > 0 ? ", \(saves.pending) pending" : "")
                    } ?? "–")
            }
            experiments.append(
                .init(
                    id: experiment.id, placement: experiment.placement, isRetention: isRetention, status: experiment.status.rawValue,
                    winner: experiment.winner,
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

    package func saveOfferingsForm(_ request: Request, _ context: APIRequestContext) async throws -> Response {
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

    package func restoreOfferingsForm(_ request: Request, _ context: APIRequestContext) async throws -> Response {
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

    package func stopExperimentForm(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try adminApp(context)
        let form = try await Self.checkedForm(request, context, api: api)
        guard let winner = form.text("winner") else { throw DashboardError.badRequest("Choose the variant to roll out.") }
        let saved = try await api.stopExperiment(id: try context.pathParameter("experimentId"), winner: winner, app: app, actor: visitor.actor)
        return Self.redirect(to: "/dashboard/apps/\(Self.pathComponent(app.id))/offerings?saved=\(saved.version)")
    }
}

extension Array {
    package subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
