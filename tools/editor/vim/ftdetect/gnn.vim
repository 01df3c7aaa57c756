" .gnn files are gnnc programs (syntax/gnn.vim).
autocmd BufRead,BufNewFile *.gnn setfiletype gnn
