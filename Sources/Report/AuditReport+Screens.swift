import Events
import Foundation
import Projections

extension AuditReport {
  /// The five apps' screens at the report's point, each cut to `limits.rowsPerScreen` rows.
  func screensSection(_ page: inout HTMLText, locations: [LocationListing]) {
    page.raw(
      "<section id=\"screens\"><h2>The five screens at seq \(pointSequence)</h2>"
        + "<div class=\"screens\">\n")
    contactsScreen(&page)
    zipCodesScreen(&page)
    observationsScreen(&page)
    animalsScreen(&page)
    locationsScreen(&page, listing: locations)
    page.raw("</div></section>\n")
  }

  /// Says how many rows were left out, if any.
  private func leftOut(_ page: inout HTMLText, total: Int, shown: Int, noun: String) {
    guard total > shown else { return }
    page.element(
      "p", "class=\"note\"",
      "… and \(HTMLText.count(total - shown)) more \(noun), left out of this page")
  }

  private func contactsScreen(_ page: inout HTMLText) {
    let contacts = models.contacts
    page.raw("<article class=\"screen\" id=\"contacts\" data-count=\"\(contacts.count)\"")
    let limit = request.limits.rowsPerScreen
    let sections = contacts.sections(rowsPerSection: limit)
    for (section, count) in sections {
      let key = section.title == ContactList.favoritesTitle ? "favorites" : "others"
      page.raw(" data-\(key)=\"\(count)\"")
    }
    page.raw("><h3>Contacts</h3>")
    var budget = limit
    for (section, count) in sections {
      page.element("h4", "", "\(section.title) (\(HTMLText.count(count)))")
      page.raw("<ul>")
      let shown = section.contacts.prefix(max(0, budget))
      budget -= shown.count
      for row in shown {
        page.raw("<li><span class=\"pic\" aria-hidden=\"true\">")
        page.text(Self.initials(row.name))
        page.raw("</span><div>")
        if row.isFavorite {
          page.raw("<span class=\"star\" title=\"favourite\" aria-label=\"favourite\">★</span> ")
        }
        page.userElement("strong", "class=\"name\"", row.name)
        // The detail screen's first rows: the company, then the e-mail address or a phone.
        let detail = row.detail.prefix(2).map(\.value).filter { !$0.isEmpty }
        if !detail.isEmpty {
          page.raw("<div class=\"sub\">")
          for (index, value) in detail.enumerated() {
            if index > 0 { page.raw(" · ") }
            page.isolated(value)
          }
          page.raw("</div>")
        }
        page.raw("</div></li>")
      }
      page.raw("</ul>")
      leftOut(&page, total: count, shown: shown.count, noun: "contacts")
    }
    page.raw("</article>\n")
  }

  private func zipCodesScreen(_ page: inout HTMLText) {
    let states = models.zipCodes.states
    let zipCount = states.reduce(0) { $0 + $1.zipCodes.count }
    page.raw(
      "<article class=\"screen\" id=\"zipcodes\" data-count=\"\(states.count)\" "
        + "data-zipcodes=\"\(zipCount)\"><h3>States and zip codes</h3>")
    page.element(
      "p", "class=\"sub\"",
      "\(HTMLText.count(states.count)) states, \(HTMLText.count(zipCount)) zip codes")
    page.raw("<ul>")
    let shown = states.prefix(request.limits.rowsPerScreen)
    for state in shown {
      page.raw("<li><div>")
      page.userElement("strong", "class=\"name\"", state.name.description)
      let codes = state.zipCodes.prefix(12).map(\.description)
      var list = codes.joined(separator: " ")
      if state.zipCodes.count > codes.count {
        list += " … (\(HTMLText.count(state.zipCodes.count)) in all)"
      }
      page.element("div", "class=\"zips\"", list.isEmpty ? "no zip codes" : list)
      page.raw("</div></li>")
    }
    page.raw("</ul>")
    leftOut(&page, total: states.count, shown: shown.count, noun: "states")
    page.raw("</article>\n")
  }

  private func observationsScreen(_ page: inout HTMLText) {
    let rows = models.observations.rows()
    page.raw(
      "<article class=\"screen\" id=\"observations\" data-count=\"\(rows.count)\"><h3>")
    page.text(ObservationList.listTitle)
    page.raw("</h3><ul>")
    let shown = rows.prefix(request.limits.rowsPerScreen)
    for row in shown {
      page.raw("<li>")
      page.raw(Self.classificationIcon(row.classification))
      page.raw("<div>")
      page.userElement("strong", "class=\"name\"", row.title)
      page.element("div", "class=\"sub\"", row.dateText)
      page.raw("</div></li>")
    }
    page.raw("</ul>")
    leftOut(&page, total: rows.count, shown: shown.count, noun: "observations")
    page.raw("</article>\n")
  }

  private func animalsScreen(_ page: inout HTMLText) {
    let animals = models.animals.animals
    let inserted = animals.filter(\.isInserted).count
    page.raw(
      "<article class=\"screen\" id=\"animals\" data-count=\"\(animals.count)\" "
        + "data-inserted=\"\(inserted)\"><h3>Taipei Zoo</h3>")
    page.element(
      "p", "class=\"sub\"",
      "\(HTMLText.count(animals.count)) animals, \(HTMLText.count(inserted)) added by users "
        + "(listed first)")
    page.raw("<ul>")
    let shown = animals.prefix(request.limits.rowsPerScreen)
    for animal in shown {
      page.raw("<li>")
      var unlinked: String?
      switch animal.picture {
      case .local(let path):
        page.raw(
          "<span class=\"pic\" title=\"picture on the device: "
            + HTMLText.isolatedPlainText(path) + "\">local<br>picture</span>")
      case .remote(let url):
        if let link = Self.webLink(url) {
          // Linked, never loaded: the page makes no request.
          page.raw("<a class=\"pic\" href=\"")
          page.text(link)
          page.raw("\" title=\"picture on the web (not loaded)\">web<br>picture</a>")
        } else {
          // Any other scheme (`javascript:`, `data:`, …) is never a link: shown as text.
          page.raw("<span class=\"pic\">other<br>picture</span>")
          unlinked = url
        }
      case .none:
        page.raw("<span class=\"pic\">no<br>picture</span>")
      }
      page.raw("<div>")
      page.userElement("strong", "class=\"name\"", animal.displayName)
      page.userElement("div", "class=\"sub\"", animal.location)
      if let unlinked {
        page.raw("<div class=\"sub\">picture address, not linked: ")
        page.isolated(unlinked)
        page.raw("</div>")
      }
      page.raw("</div></li>")
    }
    page.raw("</ul>")
    leftOut(&page, total: animals.count, shown: shown.count, noun: "animals")
    page.raw("</article>\n")
  }

  private func locationsScreen(_ page: inout HTMLText, listing: [LocationListing]) {
    page.raw(
      "<article class=\"screen\" id=\"locations\" data-count=\"\(listing.count)\">"
        + "<h3>Locations</h3><ul>")
    let shown = listing.prefix(request.limits.rowsPerScreen)
    for entry in shown {
      page.raw("<li><div>")
      page.userElement("strong", "class=\"name\"", entry.location.name)
      page.element("div", "class=\"sub\"", entry.location.coordinate.description)
      if !entry.nearest.isEmpty {
        page.raw("<div class=\"sub\">nearest: ")
        for (index, neighbor) in entry.nearest.enumerated() {
          if index > 0 { page.raw(", ") }
          page.isolated(neighbor.name)
          page.text(" \(neighbor.distanceText) mi")
        }
        page.raw("</div>")
      }
      page.raw("</div></li>")
    }
    page.raw("</ul>")
    leftOut(&page, total: listing.count, shown: shown.count, noun: "locations")
    page.raw("</article>\n")
  }

  /// `url` trimmed of white space when it is an `http` or `https` address (the scheme in any
  /// case), the only ones the page links to; `nil` for anything else.
  static func webLink(_ url: String) -> String? {
    let trimmed = url.trimmingCharacters(in: .whitespacesAndNewlines)
    guard let colon = trimmed.firstIndex(of: ":") else { return nil }
    let scheme = trimmed[..<colon].lowercased()
    return scheme == "http" || scheme == "https" ? trimmed : nil
  }

  /// Up to two initials of a name, for the contact's placeholder picture.
  static func initials(_ name: String) -> String {
    let words = name.split(whereSeparator: { $0 == " " || $0 == "-" })
    return String(words.prefix(2).compactMap(\.first)).uppercased()
  }

  /// The icon of a classification: a coloured badge with its initial and its name as title.
  static func classificationIcon(_ classification: Classification) -> String {
    let color: String
    switch classification {
    case .amphibian: color = "#2f7d32"
    case .bird: color = "#0b57a4"
    case .fish: color = "#00796b"
    case .insect: color = "#8a4b00"
    case .mammal: color = "#6a3d9a"
    case .plant: color = "#3b6e00"
    case .reptile: color = "#a02b2b"
    }
    let name = classification.rawValue
    let initial = name.prefix(1).uppercased()
    return
      "<svg class=\"icon\" viewBox=\"0 0 28 28\" role=\"img\" aria-label=\"\(name)\">"
      + "<title>\(name)</title><circle cx=\"14\" cy=\"14\" r=\"13\" fill=\"\(color)\"/>"
      + "<text x=\"14\" y=\"19\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"700\" "
      + "fill=\"#fff\">\(initial)</text></svg>"
  }
}
