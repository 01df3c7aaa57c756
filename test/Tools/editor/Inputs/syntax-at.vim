" Writes the filetype and the syntax group at chosen positions of $GNN_FILE
" (vim-syntax.test) to $GNN_OUT, with $GNN_VIM on the runtimepath.
set nocompatible
let &runtimepath = $GNN_VIM . ',' . &runtimepath
filetype on
syntax on
edit $GNN_FILE
let s:out = ['filetype: ' . &filetype]
for [s:l, s:c] in [[1,4],[3,1],[5,1],[5,9],[5,16],[5,21],[7,19],[10,3],[12,5],[17,3],[17,32],[20,25],[21,3],[22,38]]
  call add(s:out, s:l . ':' . s:c . ' ' . synIDattr(synID(s:l, s:c, 1), 'name'))
endfor
call writefile(s:out, $GNN_OUT)
qall!
