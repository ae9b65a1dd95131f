# Reference values for tests/similarity/test_wang_gosemsim.py, computed by GOSemSim (an
# independent implementation of Wang et al. 2007) on GO.db 3.16, the source of
# ../shared/ontologies/go-2022-07-01.obo.gz.
#
# GOSemSim 2.24 (Debian r-bioc-gosemsim) weights every GO.db edge 0.7: GO.db spells the
# relations "isa" / "part of", which its weight table (is_a, part_of, other) files under
# "other". It keeps the first S-value it meets per ancestor, breadth first, which is the
# maximum when all weights are equal. So these values are Wang similarity with every
# relation of GO.db (is_a, part_of, regulates, positively/negatively regulates) at 0.7.
# wangMethod_internal is called directly: goSim() rounds to 3 decimals. GOSemSim ships its
# own, older, table of GO edges (gotbl); it is replaced here by GO.db 3.16's parent tables so
# that both sides read the same graph.
#
# Run: Rscript gosemsim_reference.R > gosemsim_go_wang_uniform07.tsv
suppressMessages({ library(GOSemSim); library(GO.db); library(AnnotationDbi) })
set.seed(20070515)
GOSemSim:::.initial()
tables <- lapply(c(CC = "CC", MF = "MF", BP = "BP"), function(ont) {
  t <- toTable(switch(ont, CC = GOCCPARENTS, MF = GOMFPARENTS, BP = GOBPPARENTS))
  data.frame(go_id = t[[1]], relationship = t[[3]], parent = t[[2]], Ontology = ont,
             stringsAsFactors = FALSE)
})
assign("gotbl", do.call(rbind, tables), envir = get(".GOSemSimEnv", envir = .GlobalEnv))
cat(sprintf("# GOSemSim %s, GO.db %s; Wang, every relation weight 0.7; seed 20070515\n",
            packageVersion("GOSemSim"), packageVersion("GO.db")))
cat("ontology\tterm1\tterm2\tsimilarity\n")
for (ont in c("CC", "MF", "BP")) {
  ids <- keys(GO.db)
  ids <- ids[Ontology(ids) == ont & !is.na(Ontology(ids))]
  parents <- as.list(switch(ont, CC = GOCCPARENTS, MF = GOMFPARENTS, BP = GOBPPARENTS))
  # 40 random pairs, and 20 pairs of a term with a term two steps up (larger values)
  a <- sample(ids, 40); b <- sample(ids, 40)
  near <- sample(ids, 20)
  up <- vapply(near, function(t) {
    p <- setdiff(parents[[t]], "all"); if (length(p) == 0) return(t)
    q <- setdiff(parents[[p[1]]], "all"); if (length(q) == 0) p[1] else q[1]
  }, character(1))
  a <- c(a, near); b <- c(b, unname(up))
  for (i in seq_along(a)) {
    s <- GOSemSim:::wangMethod_internal(a[i], b[i], ont = ont)
    cat(sprintf("%s\t%s\t%s\t%.15g\n", ont, a[i], b[i], s))
  }
}
