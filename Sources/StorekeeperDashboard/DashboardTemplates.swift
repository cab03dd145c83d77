import Foundation
import Hummingbird
import Mustache

/// The dashboard's mustache templates and stylesheet, kept as resources of this target and
/// loaded once. `{{value}}` escapes HTML; the only unescaped values (`{{{…}}}`) are the charts,
/// which ``SVGChart`` escapes itself.
package struct DashboardTemplates: Sendable {
    package let library: MustacheLibrary
    package let stylesheet: ByteBuffer

    package struct MissingResource: Error, CustomStringConvertible {
        package var description: String
    }

    /// The templates in the bundle's `Dashboard` folder.
    package static func load() throws -> DashboardTemplates {
        guard let folder = Bundle.module.url(forResource: "Dashboard", withExtension: nil) else {
            throw MissingResource(description: "the dashboard's templates are missing from the server's resources")
        }
        var library = MustacheLibrary()
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        for file in files where file.pathExtension == "mustache" {
            try library.register(String(contentsOf: file, encoding: .utf8), named: file.deletingPathExtension().lastPathComponent)
        }
        let css = try String(contentsOf: folder.appendingPathComponent("dashboard.css"), encoding: .utf8)
        return DashboardTemplates(library: library, stylesheet: ByteBuffer(string: css))
    }

    /// A page: `template` rendered with the layout's `frame` (nil on the sign-in page) and the
    /// page's own values under `page`.
    package func page(_ template: String, title: String, frame: DashboardFrame?, status: HTTPResponse.Status = .ok, page: Any) -> Response {
        var values: [String: Any] = ["title": title, "page": page]
        if let frame { values["frame"] = frame }
        guard let html = library.render(values, withTemplate: template) else {
            return Response(
                status: .internalServerError, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "template \(template) is missing")))
        }
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    package func errorPage(status: HTTPResponse.Status, message: String) -> Response {
        page(
            "error", title: "\(status.code) \(status.reasonPhrase)", frame: nil, status: status,
            page: ["status": "\(status.code) \(status.reasonPhrase)", "message": message])
    }

    package func stylesheetResponse() -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "max-age=3600"],
            body: .init(byteBuffer: stylesheet))
    }
}
