# Reference values for tests/similarity/test_ic_gosemsim.py: Resnik, Lin, Jiang and Rel term
# similarities and max/avg/rcmax/BMA group scores, computed by GOSemSim 2.24 (Debian
# r-bioc-gosemsim) on GO.db 3.16, the source of ../shared/ontologies/go-2022-07-01.obo.gz.
#
# Information content: GOSemSim's own computeIC() on an annotation table made here (seeded):
# for each GO branch, 1,500 distinct terms drawn at random, each used 1 to 6 times. The table is
# written out too (gosemsim_ic_annotations.tsv), so the Python side computes its IC from the
# same counts. computeIC() takes its term list from GOSemSim's packaged edge table (gotbl,
# older than GO.db 3.16); it is replaced by GO.db 3.16's parent tables, as in
# gosemsim_reference.R, so that both sides read one graph. Term similarities go through
# termSim() (goSim() rounds to 3 decimals); group scores through GOSemSim's combineScores()
# on the term-by-term matrix (termSim()'s, see group_sim) scaled by 1e6 and the result divided by 1e6, since combineScores()
# rounds to 3 decimals and every combine method is homogeneous (scaling commutes with it).
#
# Pairs: per branch, 600 pairs of two terms with an information content (finite and above 0),
# plus 67 pairs of any two terms (most have no annotation below them: NA). Groups: per
# branch, 40 pairs of term sets of 1 to 8 terms drawn among the terms with an IC, plus
# 10 with one or two terms without (combineScores drops rows and columns that are all NA).
#
# Run (about a minute):
#   Rscript gosemsim_ic_reference.R gosemsim_ic_annotations.tsv > gosemsim_ic_reference.tsv
#   (then gzip -9n gosemsim_ic_reference.tsv)
suppressMessages({ library(GOSemSim); library(GO.db); library(AnnotationDbi) })
args <- commandArgs(trailingOnly = TRUE)
annotations_out <- args[1]
set.seed(20040815)
GOSemSim:::.initial()
tables <- lapply(c(CC = "CC", MF = "MF", BP = "BP"), function(ont) {
  t <- toTable(switch(ont, CC = GOCCPARENTS, MF = GOMFPARENTS, BP = GOBPPARENTS))
  data.frame(go_id = t[[1]], relationship = t[[3]], parent = t[[2]], Ontology = ont,
             stringsAsFactors = FALSE)
})
gotbl <- do.call(rbind, tables)
assign("gotbl", gotbl, envir = get(".GOSemSimEnv", envir = .GlobalEnv))
measures <- c("Resnik", "Lin", "Jiang", "Rel")
combines <- c("max", "avg", "rcmax", "BMA")
fmt <- function(x) ifelse(is.na(x), "NA", sprintf("%.15g", x))
cat(sprintf("# GOSemSim %s, GO.db %s; IC from %s; seed 20040815\n",
            packageVersion("GOSemSim"), packageVersion("GO.db"), basename(annotations_out)))
cat(paste(c("kind", "ontology", "terms1", "terms2", paste0(rep(measures, each = 1)),
            paste0(rep(measures, each = 4), "_", combines)), collapse = "\t"), "\n", sep = "")
annotations <- list()
for (ont in c("BP", "CC", "MF")) {
  ids <- unique(gotbl[gotbl$Ontology == ont, "go_id"])
  used <- sample(ids, 1500)
  times <- sample(1:6, length(used), replace = TRUE)
  annotations[[ont]] <- data.frame(ontology = ont, term = used, count = times)
  sd <- new("GOSemSimDATA", ont = ont)
  sd@IC <- GOSemSim:::computeIC(data.frame(GO = rep(used, times)), ont)
  with_ic <- names(sd@IC)[is.finite(sd@IC) & sd@IC > 0]
  a <- c(sample(with_ic, 600, replace = TRUE), sample(ids, 67, replace = TRUE))
  b <- c(sample(with_ic, 600, replace = TRUE), sample(ids, 67, replace = TRUE))
  # one termSim() call per measure (each reads GO.db's ancestor table whole): all a x b, then the diagonal
  s <- sapply(measures, function(m) {
    sim <- termSim(a, b, sd, method = m)
    sim[cbind(seq_along(a), seq_along(b))]
  })
  for (i in seq_along(a)) {
    cat(paste(c("pair", ont, a[i], b[i], fmt(s[i, ]), rep("", 16)), collapse = "\t"), "\n", sep = "")
  }
  # termSim() for many small groups, with GO.db's ancestor table read once: the body of
  # GOSemSim:::infoContentMethod (2.24) with its as.list(getAncestors(ont)) hoisted out
  anc <- AnnotationDbi::as.list(GOSemSim:::getAncestors(ont))
  group_sim <- function(g1, g2, m) {
    a <- anc[union(g1, g2)]
    a <- a[!vapply(a, GOSemSim:::is.empty, logical(1))]
    GOSemSim:::infoContentMethod_cpp(g1, g2, a, sd@IC, m, ont)
  }
  without_ic <- setdiff(ids, with_ic)
  for (g in 1:50) {
    g1 <- sample(with_ic, sample(1:8, 1)); g2 <- sample(with_ic, sample(1:8, 1))
    if (g > 40) g1 <- c(g1, sample(without_ic, sample(1:2, 1)))
    scores <- unlist(lapply(measures, function(m) {
      sim <- group_sim(g1, g2, m)
      vapply(combines, function(cb) GOSemSim:::combineScores(sim * 1e6, cb) / 1e6, numeric(1))
    }))
    cat(paste(c("group", ont, paste(g1, collapse = " "), paste(g2, collapse = " "), rep("", 4), fmt(scores)),
              collapse = "\t"), "\n", sep = "")
  }
}
write.table(do.call(rbind, annotations), annotations_out, sep = "\t", quote = FALSE, row.names = FALSE)
