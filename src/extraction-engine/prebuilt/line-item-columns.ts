// The columns of the prebuilt `line_items` table and the header words that name them in the
// languages the prebuilt labels cover. Phrases are matched on whole words, longest first, so "unit
// price" is one column and "unit" another.

import type { TableColumnSpecification } from '../fields/table-specification.ts';

export const lineItemColumns: TableColumnSpecification[] = [
  {
    name: 'position',
    type: 'integer',
    role: 'position',
    hidden: true,
    headerLabels: { en: ['pos', 'no', 'no.', '#', 'line', 'item no', 's.no', 's.no.', 's. no.', 'sr. no.', 'sr.no.', 'sl. no.', 'sl.no.', 's/n'], de: ['pos', 'pos.', 'nr', 'nr.', 'position'], fr: ['n°', 'ligne'], nl: ['nr', 'regel'], pl: ['lp', 'lp.'], es: ['n°'], it: ['n°', 'riga'] },
  },
  {
    name: 'product_code',
    type: 'string',
    headerLabels: {
      // India: the HSN (goods) or SAC (services) code of each item.
      en: ['sku', 'code', 'item code', 'product code', 'part no', 'part number', 'article no', 'ref', 'reference', 'item #', 'hsn', 'hsn/sac', 'hsn code', 'sac'],
      de: ['art.nr.', 'art.-nr.', 'art-nr', 'art-nr-lieferant', 'artikelnummer', 'artikel-nr.', 'artikelnr.', 'art-nr-lief.', 'art-nr-kunde', 'artnr', 'sachnummer'],
      fr: ['réf', 'réf.', 'référence', 'code', 'code article'],
      nl: ['artikelnummer', 'artikelnr', 'art.nr.', 'code'],
      pl: ['kod', 'indeks', 'symbol'],
      es: ['código', 'referencia', 'ref.'],
      it: ['codice', 'cod.', 'riferimento'],
    },
  },
  {
    name: 'description',
    type: 'string',
    role: 'description',
    headerLabels: {
      en: ['description', 'item', 'items', 'product', 'products', 'service', 'services', 'details', 'particulars', 'article', 'articles', 'desc', 'desc.', 'item description', 'product name', 'name'],
      de: ['beschreibung', 'bezeichnung', 'artikel', 'artikelbeschreibung', 'artikelbezeichnung', 'leistung', 'leistungen', 'produkt', 'text', 'leistungsbeschreibung'],
      fr: ['description', 'désignation', 'designation', 'libellé', 'libelle', 'article', 'produit', 'prestation'],
      nl: ['omschrijving', 'beschrijving', 'artikel', 'product', 'dienst'],
      pl: ['nazwa', 'opis', 'towar', 'nazwa towaru', 'nazwa towaru lub usługi', 'usługa'],
      es: ['descripción', 'descripcion', 'concepto', 'artículo'],
      it: ['descrizione', 'articolo', 'prodotto'],
    },
  },
  {
    name: 'date',
    type: 'date',
    headerLabels: { en: ['date', 'service date'], de: ['datum', 'leistungsdatum'], fr: ['date'], nl: ['datum'], pl: ['data'], es: ['fecha'], it: ['data'] },
  },
  {
    name: 'quantity',
    type: 'number',
    role: 'quantity',
    headerLabels: {
      en: ['qty', 'qty.', 'quantity', 'hours', 'hrs', 'pcs', 'count'],
      de: ['menge', 'anzahl', 'stück', 'stunden', 'std.', 'anz.'],
      fr: ['quantité', 'quantite', 'qté', 'qte', 'nombre', 'qté.'],
      nl: ['aantal', 'hoeveelheid', 'aant.'],
      pl: ['ilość', 'ilosc', 'il.'],
      es: ['cantidad', 'cant.'],
      it: ['quantità', 'quantita', 'q.tà', 'qtà'],
    },
  },
  {
    name: 'unit',
    type: 'string',
    role: 'unit',
    headerLabels: { en: ['unit', 'uom', 'units'], de: ['einheit', 'me', 'mengeneinheit'], fr: ['unité', 'unite', 'u.'], nl: ['eenheid'], pl: ['j.m.', 'jm', 'jedn.', 'jednostka'], es: ['unidad', 'ud.'], it: ['unità', 'u.m.'] },
  },
  {
    name: 'unit_price',
    type: 'amount',
    role: 'unit-price',
    headerLabels: {
      // Tills: "U.Price", "U/Price", "S/Price" (selling price), "RSP" (retail selling price), "U.P".
      en: ['unit price', 'price', 'rate', 'rates', 'unit rate', 'unit cost', 'price/unit', 'each', 'net price', 'unit price net', 'u.price', 'u/price', 's/price', 'rsp', 'u.p', 'u/p'],
      de: ['einzelpreis', 'preis', 'e-preis', 'ep', 'stückpreis', 'nettopreis', 'vk-preis', 'verkaufspreis', 'preis/', 'einzelpreis netto', 'preis/einheit'],
      fr: ['prix unitaire', 'prix', 'p.u.', 'pu', 'prix u.', 'prix unitaire ht', 'pu ht'],
      nl: ['prijs', 'stukprijs', 'eenheidsprijs', 'prijs per stuk'],
      pl: ['cena', 'cena jedn.', 'cena jednostkowa', 'cena netto', 'cena jedn. netto'],
      es: ['precio', 'precio unitario'],
      it: ['prezzo', 'prezzo unitario'],
    },
  },
  {
    // How many units a price refers to ("VKE/Geb" 20: a case of 20): a column of its own, so that its
    // small whole numbers are not read as the unit price or quantity beside it.
    name: 'pack_size',
    type: 'number',
    hidden: true,
    headerLabels: { en: ['pack', 'pack size', 'case size', 'pack qty'], de: ['vke', 'vke/geb', 've', 'verpackungseinheit', 'gebinde', 'pe', 'preiseinheit'], fr: ['colisage', 'conditionnement'], nl: ['verpakkingseenheid', 'colli'], pl: ['opakowanie'] },
  },
  {
    name: 'discount',
    type: 'percent',
    role: 'discount',
    hidden: true,
    headerLabels: { en: ['disc.%', 'disc.', 'disc', 'discount', 'disc %'], de: ['rabatt', 'rabatt %', 'nachlass'], fr: ['remise', 'rem.'], nl: ['korting'], pl: ['rabat', 'upust'], es: ['descuento', 'dto.'], it: ['sconto'] },
  },
  {
    name: 'tax_rate',
    type: 'percent',
    role: 'tax-rate',
    headerLabels: {
      en: ['tax', 'taxes', 'vat', 'vat %', 'tax %', 'vat rate', 'tax rate', 'gst', 'gst %'],
      de: ['mwst', 'mwst.', 'mwst.%', 'mwst. %', 'ust', 'ust.', 'ust.%', 'ust. %', 'steuer', 'steuersatz', 'mwst.-satz', 'mwst-%', 'ust-%'],
      fr: ['tva', 'tva %', 'taux tva', 'taux'],
      nl: ['btw', 'btw %', 'btw-tarief'],
      pl: ['vat', 'stawka', 'stawka vat', 'vat %'],
      es: ['iva', 'iva %'],
      it: ['iva', 'iva %', 'aliquota'],
    },
  },
  {
    name: 'amount',
    type: 'amount',
    role: 'line-total',
    headerLabels: {
      en: ['amount', 'amt', 'amt.', 'total', 'line total', 'net', 'price incl. vat', 'incl. vat', 'amount incl. vat', 'gross', 'net amount', 'amount net', 'total price', 'value', 'sum', 'price total', 'ext. price', 'extended'],
      de: ['betrag', 'gesamt', 'gesamtpreis', 'summe', 'gesamtbetrag', 'zeilenbetrag', 'positionsbetrag', 'positions- betrag', 'entgelt', 'netto', 'wert', 'nettobetrag', 'nettowert', 'brutto', 'bruttobetrag', 'preis inkl. mwst.'],
      fr: ['montant', 'total', 'montant ht', 'total ht', 'prix total', 'montant ttc', 'total ttc'],
      nl: ['bedrag', 'totaal', 'totaalprijs', 'subtotaal', 'prijs incl. btw', 'incl. btw'],
      pl: ['wartość', 'wartosc', 'wartość netto', 'kwota', 'wartość brutto'],
      es: ['importe', 'total'],
      it: ['importo', 'totale'],
    },
  },
];
