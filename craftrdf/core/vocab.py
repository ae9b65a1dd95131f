"""The IRIs craftrdf writes and reads, as closed sets of constants.

Each namespace is a class whose attributes are full IRI strings, so a typo is an
``AttributeError`` at import time of the caller rather than a silently empty query.
``prefixes()`` gives the map every ``.rq`` file and serializer shares.
"""

from __future__ import annotations

from typing import Final

#: Namespace of the resources craftrdf mints (documents, annotations, sets, graphs).
BASE: Final = "https://w3id.org/craftrdf/"


class RDF:
    NS: Final = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    type: Final = NS + "type"
    first: Final = NS + "first"
    rest: Final = NS + "rest"
    nil: Final = NS + "nil"


class RDFS:
    NS: Final = "http://www.w3.org/2000/01/rdf-schema#"
    label: Final = NS + "label"
    subClassOf: Final = NS + "subClassOf"
    subPropertyOf: Final = NS + "subPropertyOf"
    comment: Final = NS + "comment"
    domain: Final = NS + "domain"
    range: Final = NS + "range"


class OWL:
    NS: Final = "http://www.w3.org/2002/07/owl#"
    Class: Final = NS + "Class"
    ObjectProperty: Final = NS + "ObjectProperty"
    TransitiveProperty: Final = NS + "TransitiveProperty"
    Ontology: Final = NS + "Ontology"
    deprecated: Final = NS + "deprecated"
    versionInfo: Final = NS + "versionInfo"
    # class axioms and expressions (OBO 1.4 -> OWL mapping)
    Restriction: Final = NS + "Restriction"
    onProperty: Final = NS + "onProperty"
    someValuesFrom: Final = NS + "someValuesFrom"
    allValuesFrom: Final = NS + "allValuesFrom"
    onClass: Final = NS + "onClass"
    qualifiedCardinality: Final = NS + "qualifiedCardinality"
    minQualifiedCardinality: Final = NS + "minQualifiedCardinality"
    maxQualifiedCardinality: Final = NS + "maxQualifiedCardinality"
    intersectionOf: Final = NS + "intersectionOf"
    unionOf: Final = NS + "unionOf"
    complementOf: Final = NS + "complementOf"
    equivalentClass: Final = NS + "equivalentClass"
    disjointWith: Final = NS + "disjointWith"
    # property axioms
    AnnotationProperty: Final = NS + "AnnotationProperty"
    SymmetricProperty: Final = NS + "SymmetricProperty"
    inverseOf: Final = NS + "inverseOf"


class XSD:
    NS: Final = "http://www.w3.org/2001/XMLSchema#"
    string: Final = NS + "string"
    integer: Final = NS + "integer"
    nonNegativeInteger: Final = NS + "nonNegativeInteger"
    boolean: Final = NS + "boolean"
    double: Final = NS + "double"
    decimal: Final = NS + "decimal"


class DCTERMS:
    NS: Final = "http://purl.org/dc/terms/"
    identifier: Final = NS + "identifier"
    creator: Final = NS + "creator"
    source: Final = NS + "source"
    license: Final = NS + "license"
    title: Final = NS + "title"


class FABIO:
    NS: Final = "http://purl.org/spar/fabio/"
    ResearchPaper: Final = NS + "ResearchPaper"
    hasPubMedId: Final = NS + "hasPubMedId"
    hasPubMedCentralId: Final = NS + "hasPubMedCentralId"


class OA:
    """W3C Web Annotation vocabulary."""

    NS: Final = "http://www.w3.org/ns/oa#"
    Annotation: Final = NS + "Annotation"
    SpecificResource: Final = NS + "SpecificResource"
    TextPositionSelector: Final = NS + "TextPositionSelector"
    hasBody: Final = NS + "hasBody"
    hasTarget: Final = NS + "hasTarget"
    hasSource: Final = NS + "hasSource"
    hasSelector: Final = NS + "hasSelector"
    start: Final = NS + "start"
    end: Final = NS + "end"
    exact: Final = NS + "exact"


class OBO:
    NS: Final = "http://purl.obolibrary.org/obo/"
    definition: Final = NS + "IAO_0000115"  # IAO 'definition'
    part_of: Final = NS + "BFO_0000050"


class OBOINOWL:
    NS: Final = "http://www.geneontology.org/formats/oboInOwl#"
    id: Final = NS + "id"
    hasOBONamespace: Final = NS + "hasOBONamespace"
    hasExactSynonym: Final = NS + "hasExactSynonym"
    hasBroadSynonym: Final = NS + "hasBroadSynonym"
    hasNarrowSynonym: Final = NS + "hasNarrowSynonym"
    hasRelatedSynonym: Final = NS + "hasRelatedSynonym"
    hasAlternativeId: Final = NS + "hasAlternativeId"
    hasDbXref: Final = NS + "hasDbXref"
    inSubset: Final = NS + "inSubset"
    consider: Final = NS + "consider"
    hasSynonymType: Final = NS + "hasSynonymType"


class IAO:
    replaced_by: Final = OBO.NS + "IAO_0100001"


class CRAFT:
    """craftrdf's own small vocabulary (documented in docs/rdf-model.md)."""

    NS: Final = BASE + "vocab#"
    # classes
    AnnotationSet: Final = NS + "AnnotationSet"
    ExtensionClass: Final = NS + "ExtensionClass"
    ParallelExtensionClass: Final = NS + "ParallelExtensionClass"
    OntologyGraph: Final = NS + "OntologyGraph"
    MappingGraph: Final = NS + "MappingGraph"
    # documents
    text: Final = NS + "text"
    split: Final = NS + "split"
    # annotations
    begin: Final = NS + "begin"
    end: Final = NS + "end"
    spanCount: Final = NS + "spanCount"
    spanIndex: Final = NS + "spanIndex"
    spans: Final = NS + "spans"
    coveredText: Final = NS + "coveredText"
    #: a trained matcher's confidence in an annotation (xsd:decimal in [0, 1])
    confidence: Final = NS + "confidence"
    localId: Final = NS + "localId"
    # sets and graphs
    key: Final = NS + "key"
    module: Final = NS + "module"
    variant: Final = NS + "variant"
    ontology: Final = NS + "ontology"
    mappings: Final = NS + "mappings"
    digest: Final = NS + "digest"
    sourceFile: Final = NS + "sourceFile"
    # extension classes and mapping files
    logicalDefinition: Final = NS + "logicalDefinition"
    parallelOf: Final = NS + "parallelOf"
    relatedClass: Final = NS + "relatedClass"
    firstRelatedClass: Final = NS + "firstRelatedClass"
    unusedClass: Final = NS + "unusedClass"
    substituteClass: Final = NS + "substituteClass"
    # views and derived data
    within: Final = NS + "within"
    #: one JSON literal per annotation in a derived view-rows graph (craftrdf.querying.indexes.ensure_view_rows)
    viewRow: Final = NS + "viewRow"
    derivedFrom: Final = NS + "derivedFrom"
    viewClasses: Final = NS + "viewClasses"
    viewNesting: Final = NS + "viewNesting"
    viewSplit: Final = NS + "viewSplit"
    appliedRule: Final = NS + "appliedRule"
    # ontology graphs and the graphs derived from them (docs/rdf-model.md)
    relationsGraph: Final = NS + "relationsGraph"
    companion: Final = NS + "companion"
    RelationsGraph: Final = NS + "RelationsGraph"
    #: a class outside the ontology file that an extension class's definition names by label
    ExternalReference: Final = NS + "ExternalReference"
    InferredGraph: Final = NS + "InferredGraph"
    inferredFrom: Final = NS + "inferredFrom"
    #: the digest of the ontology batch an inferred graph was computed from; a rebuilt ontology
    #: has another, and readers ignore the stale inferred graph (docs/classify.md)
    sourceDigest: Final = NS + "sourceDigest"
    reasoner: Final = NS + "reasoner"
    # materialized S-values of Wang similarity (craftrdf.analysis.similarity.svalue_graph, docs/similarity.md)
    SValueGraph: Final = NS + "SValueGraph"
    SValueLevel: Final = NS + "SValueLevel"
    sValue: Final = NS + "sValue"
    weights: Final = NS + "weights"
    svaluesOf: Final = NS + "svaluesOf"


class FN:
    """craftrdf's SPARQL extension functions (prefix ``craftrdf:``; :mod:`craftrdf.analysis.similarity.sparql`)."""

    NS: Final = BASE + "function#"
    wang: Final = NS + "wang"
    bossy: Final = NS + "bossy"
    wangGroup: Final = NS + "wangGroup"


class CM:
    """Vocabulary of a matcher run's set description (docs/matcher.md); properties named as the parameters."""

    NS: Final = BASE + "vocab/conceptmapper#"
    MatcherRun: Final = NS + "MatcherRun"
    dictionarySet: Final = NS + "dictionarySet"
    configuration: Final = NS + "configuration"
    effectiveConfiguration: Final = NS + "effectiveConfiguration"
    matcherVersion: Final = NS + "matcherVersion"
    caseMatch: Final = NS + "caseMatch"
    findAllMatches: Final = NS + "findAllMatches"
    orderIndependentLookup: Final = NS + "orderIndependentLookup"
    searchStrategy: Final = NS + "searchStrategy"
    stemmer: Final = NS + "stemmer"
    stopWords: Final = NS + "stopWords"
    synonyms: Final = NS + "synonyms"


def prefixes() -> dict[str, str]:
    """The prefix map shared by the query library and the serializers."""
    return {
        "rdf": RDF.NS,
        "rdfs": RDFS.NS,
        "owl": OWL.NS,
        "xsd": XSD.NS,
        "dcterms": DCTERMS.NS,
        "fabio": FABIO.NS,
        "oa": OA.NS,
        "obo": OBO.NS,
        "oboInOwl": OBOINOWL.NS,
        "craft": CRAFT.NS,
    }
