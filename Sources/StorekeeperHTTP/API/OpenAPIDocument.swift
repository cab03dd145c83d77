import Foundation
import NIOCore

/// The API's OpenAPI 3 description, served unchanged at `/openapi.json`.
///
/// It is written by hand beside the routes in `Resources/openapi.json` (a JSON file, so tools
/// and reviewers read it as what it is) and read once from the target's bundle. A test checks
/// that every route is described and that the document is valid JSON.
package enum OpenAPIDocument {
    /// The document's bytes, read on first use; an empty object if the resource were missing,
    /// which the test of the document would catch.
    package static let bytes: ByteBuffer = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"),
            let data = try? Data(contentsOf: url)
        else { return ByteBuffer(string: "{}") }
        return ByteBuffer(bytes: data)
    }()
}
